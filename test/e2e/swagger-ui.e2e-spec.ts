import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { API, startListeningApi, type TestApi } from '../support/api';
import { launchBrowser } from '../support/browser';
import { createTenant } from '../support/fixtures';

describe('Swagger UI in a real browser', () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    const listening = await startListeningApi();
    api = listening;
    base = listening.base;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('authorizes with client credentials and lists accounts', async () => {
    const tenant = await createTenant(api.app, ['accounts:read'], 'Swagger Co');
    const page = await browser.newPage();
    await page.goto(`${base}${API}/docs/`);
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.getByLabel('client_id:').fill(tenant.credential.client_id);
    await dialog.getByLabel('client_secret:').fill(tenant.credential.client_secret);
    await dialog.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
    await dialog.locator('button', { hasText: 'Logout' }).first().waitFor();
    await dialog.locator('button.btn-done').first().click();

    const operation = page.locator('#operations-Accounts-AccountsController_list');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    await expect(operation.locator('.live-responses-table .microlight').first().textContent()).resolves.toContain('Swagger Co');
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/swagger-ui-accounts.png', fullPage: false });
  });
});
