/**
 * The telemetry repository lives with its statements in libs/domain/src/telemetry
 * (telemetry.repository.ts, telemetry.queries.ts); the api registers it in TelemetryModule.
 */
export { TelemetryRepository, type BucketRow, type PointRow, type TelemetryScope } from '@app/domain';
