import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { CredentialsService } from '@app/domain';
import { toAccountId, type AccountId } from '@app/vocabulary';

export interface BenchTenant {
  accountId: AccountId;
  clientId: string;
  clientSecret: string;
}

/** An active customer account, without credentials (tenants that only receive webhooks). */
export async function createAccount(db: DataSource | EntityManager, name: string): Promise<AccountId> {
  const accountId = toAccountId(randomUUID());
  await db.query(`INSERT INTO accounts (id, name, kind, status) VALUES ($1, $2, 'customer', 'active')`, [accountId, name]);
  return accountId;
}

/** An active customer account and an all-scope credential for it (secret hashed like any other). */
export async function createTenant(db: DataSource, name: string): Promise<BenchTenant> {
  const accountId = await createAccount(db, name);
  const credential = await new CredentialsService(db).create({ name: `${name} credential`, accountIds: [accountId] });
  return { accountId, clientId: credential.client_id, clientSecret: credential.client_secret };
}

/** A real access token from the api's token endpoint (client-credentials grant, HTTP Basic). */
export async function fetchToken(apiBase: string, tenant: BenchTenant): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(tenant.clientId)}:${encodeURIComponent(tenant.clientSecret)}`).toString('base64');
  const response = await fetch(`${apiBase}/oauth/token/`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token exchange failed: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
