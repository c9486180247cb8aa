#!/usr/bin/env node
'use strict';
// `npm run test:pgbouncer`: end-to-end suites with the apps behind PgBouncer in transaction mode
// (test/support/global-setup.ts, TEST_VIA_PGBOUNCER=1; README "Operations → Behind PgBouncer").
// A representative part of the suite, chosen so that every repository's SQL runs through the
// pooler; test/deployment/pgbouncer-suites.spec.ts fails when a repository is missing here.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { ensureBuild, root } = require('./ensure-build');

/** spec → the repositories (`*.repository.ts`, by file name) whose statements it runs through the pooler. */
const SUITES = {
  'test/e2e/pooler.e2e-spec.ts': ['database', 'outbox', 'webhook-deliveries', 'accounts'],
  'test/e2e/idempotency.e2e-spec.ts': ['idempotency', 'users', 'accounts', 'credentials'],
  'test/e2e/catalogue-crud.e2e-spec.ts': ['catalogue'],
  'test/e2e/devices.e2e-spec.ts': ['devices'],
  'test/e2e/ais.e2e-spec.ts': ['ais'],
  'test/e2e/alarms.e2e-spec.ts': ['alarms'],
  'test/e2e/telemetry.e2e-spec.ts': ['telemetry'],
  'test/e2e/reports.e2e-spec.ts': ['reports', 'report-queue', 'telemetry'],
  'test/e2e/shipment-lifecycle.e2e-spec.ts': ['shipments', 'shipment-devices', 'shipment-events', 'shipment-shares', 'tracked-points', 'outbox'],
  'test/e2e/webhook-event-log.e2e-spec.ts': ['webhook-event-log', 'panel-sessions'],
  'test/e2e/webhook-dispatcher-delivery.e2e-spec.ts': ['webhook-endpoints', 'webhook-deliveries', 'outbox'],
  'test/e2e/webhook-recovery.e2e-spec.ts': ['webhook-maintenance', 'webhook-endpoints'],
  'test/e2e/audit-trail.e2e-spec.ts': ['audit'],
  'test/e2e/demo-seed-catalogue.e2e-spec.ts': ['demo'],
};

module.exports = { SUITES };

if (require.main === module) {
  ensureBuild();
  const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  const result = spawnSync(process.execPath, ['--experimental-vm-modules', jest, '--runInBand', ...process.argv.slice(2), ...Object.keys(SUITES)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TEST_VIA_PGBOUNCER: '1' },
  });
  process.exit(result.status ?? 1);
}
