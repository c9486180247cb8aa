import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import type { Cleanup } from '../harness/cleanup';
import type { BenchOptions } from '../harness/options';
import type { ResultRow } from '../harness/report';
import type { ServerProcess } from '../harness/server-process';
import type { SeededDevice } from '../seed/devices';
import type { BenchTenant } from '../seed/tenant';

export interface AppUnderTest {
  process: ServerProcess;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** origin + /api/public/v1 */
  base: string;
  /** The api's operations port (OPS_PORT: /metrics), http://127.0.0.1:<port>; meaningless for the baseline. */
  opsOrigin?: string;
}

export interface BenchContext {
  options: BenchOptions;
  root: string;
  /** The harness's own connection to the bench database (seeding, outbox writes, checks). */
  db: DataSource;
  databaseUrl: string;
  /** Environment the apps run with (and the config it yields). */
  appEnv: NodeJS.ProcessEnv;
  config: AppConfig;
  api: AppUnderTest;
  baseline: AppUnderTest;
  /** The dispatcher, when the feature has landed (dist/apps/dispatcher/src/main.js). */
  dispatcher: ServerProcess | null;
  /** Certificate files of the loopback HTTPS receiver (its CA is the dispatcher's NODE_EXTRA_CA_CERTS). */
  tls: { caFile: string; keyFile: string; certFile: string };
  tenant: BenchTenant & { token: string };
  /** The tenant's devices in list order; devices[0] carries 30 days of one-minute telemetry. */
  devices: SeededDevice[];
  telemetryWindow: { from: Date; to: Date };
  /** Start of the time range the ingest rounds write into (fresh windows after it, inside the lifecycles). */
  ingestWindowStart: Date;
  /** Paths of the served OpenAPI document (feature detection). */
  openApiPaths: ReadonlySet<string>;
  cleanup: Cleanup;
  log(message: string): void;
}

export interface Scenario {
  name: string;
  target: string;
  /** Asynchronous feature detection, before `unavailable` is asked. */
  prepare?(ctx: BenchContext): Promise<void>;
  /** Why the scenario cannot run on this build (feature not landed, adapter not wired), or null. */
  unavailable(ctx: BenchContext): string | null;
  run(ctx: BenchContext): Promise<ResultRow[]>;
  /**
   * Runs, once and small, every statement the scenario sends to the database itself (not through
   * the apps), against a migrated database: test/e2e/bench-probes.e2e-spec.ts calls it for every
   * scenario, so a changed query or schema cannot silently break a scenario until the next bench run.
   */
  probe?(db: DataSource): Promise<void>;
}
