import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { DataSource } from 'typeorm';
import { hashSecret } from '@app/domain';
import type { TestApi } from './api';
import { insertUser } from './users';

export const PANEL_PASSWORD = 'correct horse battery staple';

let passwordHash: Promise<string> | null = null;

export interface PanelUser {
  id: string;
  email: string;
}

/** A customer user (or staff, with `accountId: null`) with the test password. */
export async function insertPanelUser(
  dataSource: DataSource,
  accountId: string | null,
  role: string | null = 'COMPANY_ADMIN',
  extra: { staff?: boolean; superuser?: boolean } = {},
): Promise<PanelUser> {
  passwordHash ??= hashSecret(PANEL_PASSWORD);
  const email = `panel-${randomUUID()}@example.com`;
  const id = await insertUser(dataSource, { accountId, role, email, passwordHash: await passwordHash, ...extra });
  return { id, email };
}

const CSRF = /name="_csrf" value="([^"]+)"/;

/** The CSRF token of the first form on a page. */
export function csrfOf(html: string): string {
  const match = CSRF.exec(html);
  if (!match) throw new Error(`no CSRF field in the page:\n${html.slice(0, 500)}`);
  return match[1];
}

export interface PanelBrowser {
  /** Keeps cookies between requests, like a browser. */
  agent: TestAgent;
  csrf: string;
}

/** A cookie-keeping client that has loaded the sign-in page (so it holds the sign-in nonce). */
export async function openSignIn(api: TestApi): Promise<{ agent: TestAgent; csrf: string }> {
  const agent = request.agent(api.app.getHttpServer()) as unknown as TestAgent;
  const form = await agent.get('/panel/sign-in/').expect(200);
  return { agent, csrf: csrfOf(form.text) };
}

export async function signIn(api: TestApi, email: string, password = PANEL_PASSWORD): Promise<PanelBrowser> {
  const { agent, csrf } = await openSignIn(api);
  await agent.post('/panel/sign-in/').type('form').send({ _csrf: csrf, email, password }).expect(303).expect('Location', '/panel/');
  const home = await agent.get('/panel/').expect(200);
  return { agent, csrf: csrfOf(home.text) };
}

/** The Set-Cookie line of one cookie. */
export function setCookieLine(headers: Record<string, unknown>, name: string): string | undefined {
  const lines = headers['set-cookie'];
  return (Array.isArray(lines) ? (lines as string[]) : []).find((line) => line.startsWith(`${name}=`));
}
