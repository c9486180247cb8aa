/**
 * The demo owner: the one door to the demo seed, for the CLI's `demo:seed` and `npm start`'s demo
 * fixture (DESIGN §demo fixture) only. Its statements live here (demo.queries.ts), not in the
 * production families; the lint keeps the api and the dispatcher from importing this folder.
 */
export { demoSecret } from './demo-secret';
export {
  countAccounts,
  demoDeviceApprovedAt,
  demoDeviceApprovedAtIfSeeded,
  demoShipmentByReference,
  existingReportIds,
  lockDemoShipmentSeed,
  seedDemoAccount,
  seedDemoAlarm,
  seedDemoAttachments,
  seedDemoCatalogueRows,
  seedDemoDeviceRows,
  seedDemoHistory,
  seedDemoShare,
  seedDemoShipment,
  seedDemoTelemetryRows,
  seedDemoUser,
  seedDemoVesselTrack,
} from './demo.repository';
