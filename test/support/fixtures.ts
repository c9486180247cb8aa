import type { DataSource } from 'typeorm';
import type { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { AccountsAdminService, CredentialsService, type CreatedCredential } from '@app/domain';
import { toAccountId, type AccountId, ALL_SCOPES } from '@app/vocabulary';
import { API } from './api';

export function dataSourceOf(app: INestApplication): DataSource {
  return app.get<DataSource>(getDataSourceToken());
}

export async function createAccount(dataSource: DataSource, name = 'Test Co', overrides: { status?: 'active' | 'suspended' | 'closed'; kind?: 'customer' | 'demo' | 'internal' } = {}): Promise<AccountId> {
  const account = await new AccountsAdminService(dataSource).create({ name, ...overrides });
  return toAccountId(account.id);
}

export async function createCredential(dataSource: DataSource, accountIds: string[], scopes: string[] = [...ALL_SCOPES]): Promise<CreatedCredential> {
  return new CredentialsService(dataSource).create({ name: 'test integration', accountIds, scopes });
}

export async function tokenFor(app: INestApplication, credential: CreatedCredential, scope?: string): Promise<string> {
  const res = await request(app.getHttpServer())
    .post(`${API}/oauth/token/`)
    .type('form')
    .send({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret, ...(scope ? { scope } : {}) })
    .expect(200);
  return (res.body as { access_token: string }).access_token;
}

export interface Tenant {
  accountId: AccountId;
  credential: CreatedCredential;
  token: string;
  /** Authorization header for supertest's `.set()`. */
  auth: { Authorization: string };
}

/** A new active customer account with a credential holding the given scopes (default: all). */
export async function createTenant(app: INestApplication, scopes?: string[], name = 'Tenant'): Promise<Tenant> {
  const dataSource = dataSourceOf(app);
  const accountId = await createAccount(dataSource, name);
  const credential = await createCredential(dataSource, [accountId], scopes);
  const token = await tokenFor(app, credential);
  return { accountId, credential, token, auth: { Authorization: `Bearer ${token}` } };
}
