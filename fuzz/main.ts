/**
 * `npm run fuzz [-- --requests 20000] [-- --seed 7] [-- --concurrency 8]`: a long fuzzing run.
 * Creates a database of its own on the PostgreSQL of DATABASE_URL's server (default: the local
 * one), migrates it, starts the api in this process on a free port with a tenant whose credential
 * has every scope, sends the hostile requests of hostile-requests.ts, prints every failure (a 5xx
 * or a dropped connection), drops the database, and exits 1 if there was any.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { migrateDatabase } from '@app/database';
import { AccountsAdminService, CredentialsService } from '@app/domain';
import { createLogger } from '@app/observability';
import { createApiApp } from '../apps/api/src/bootstrap';
import { hostileRequests, runFuzz } from './hostile-requests';
import { ALL_SCOPES } from '@app/vocabulary';

const API = '/api/public/v1';

function option(name: string, fallback: number): number {
  const args = process.argv.slice(2);
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  const index = args.indexOf(`--${name}`);
  const raw = inline ? inline.split('=')[1] : index >= 0 ? args[index + 1] : undefined;
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

async function admin<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const requests = option('requests', 20_000);
  const seed = option('seed', Date.now() % 1_000_000);
  const concurrency = option('concurrency', 8);
  const server = new URL(process.env.DATABASE_URL || process.env.TEST_POSTGRES_URL || 'postgresql://postgres@127.0.0.1:5432/postgres');
  server.pathname = '/postgres';
  const name = `coldchain_fuzz_${randomBytes(4).toString('hex')}`;
  await admin(server.toString(), (client) => client.query(`CREATE DATABASE "${name}"`));
  const databaseUrl = new URL(server.toString());
  databaseUrl.pathname = `/${name}`;
  try {
    await migrateDatabase(databaseUrl.toString());
    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl.toString(),
      AMQP_PREFIX: name,
      RATE_LIMIT_PER_MINUTE: '10000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '10000000',
      INGEST_CONSUMER: 'off',
      OUTBOX_RELAY: 'off',
      OPS_PORT: '0',
    });
    const app = await createApiApp(config, createLogger('silent', 'fuzz'));
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    try {
      const dataSource = app.get<DataSource>(getDataSourceToken());
      const account = await new AccountsAdminService(dataSource).create({ name: 'Fuzzed Co' });
      const credential = await new CredentialsService(dataSource).create({ name: 'fuzz', accountIds: [account.id], scopes: [...ALL_SCOPES] });
      const token = await fetch(`${base}${API}/oauth/token/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
      }).then((res) => res.json() as Promise<{ access_token: string }>);
      const document = await fetch(`${base}${API}/schema/`).then((res) => res.json() as Promise<Parameters<typeof hostileRequests>[0]>);
      const started = Date.now();
      const result = await runFuzz(base, hostileRequests(document, { authorization: `Bearer ${token.access_token}`, accountId: account.id, ids: { account_id: [account.id] } }, requests, seed), concurrency);
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(`fuzz: ${result.sent} requests (seed ${seed}) in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(result.statuses)}; ${result.failures.length} failure(s)\n`);
      for (const failure of result.failures.slice(0, 50)) process.stdout.write(`  ${failure.outcome}: ${failure.request}\n`);
      process.exitCode = result.failures.length > 0 ? 1 : 0;
    } finally {
      await app.close();
    }
  } finally {
    await admin(server.toString(), (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`fuzz failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
