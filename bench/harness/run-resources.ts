import type { DataSource } from 'typeorm';
import { makeTestCertificates, removeCertificates } from '../support/certificates';
import { deleteRunBrokerNames } from './app-env';
import { createRunDatabase, uniqueName } from './bench-database';
import type { Cleanup } from './cleanup';
import { attributeServicesTo } from './proc-stats';

export interface RunResources {
  db: DataSource;
  databaseUrl: string;
  amqpPrefix: string;
  tls: { caFile: string; keyFile: string; certFile: string };
}

/**
 * What every harness run owns (bench and soak): its own migrated database `<prefix>_<time>_<random>`,
 * its own AMQP prefix and throwaway certificates; each registered for cleanup as it is created.
 */
export async function openRunResources(root: string, adminUrl: string, amqpUrl: string, prefix: string, cleanup: Cleanup, log: (message: string) => void): Promise<RunResources> {
  const { databaseName, databaseUrl, db } = await createRunDatabase(adminUrl, prefix, cleanup, log);
  // PostgreSQL CPU rows count only this database's backends (and the shared writers).
  attributeServicesTo(databaseName);
  const amqpPrefix = uniqueName(prefix);
  cleanup.add(`delete broker names ${amqpPrefix}.*`, () => deleteRunBrokerNames(root, amqpUrl, amqpPrefix));
  const tls = makeTestCertificates();
  cleanup.add('remove test certificates', () => Promise.resolve(removeCertificates(tls)));
  return { db, databaseUrl, amqpPrefix, tls };
}
