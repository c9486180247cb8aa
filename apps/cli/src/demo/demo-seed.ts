import type { DataSource } from 'typeorm';
import { demoSecret, countAccounts, seedDemoAccount } from '@app/domain/demo';
import { toAccountId, ALL_SCOPES, READ_SCOPES } from '@app/vocabulary';
import { DEMO_IDS, type DemoFixture, type DemoSeedContext, type DemoSeedStep } from './demo-context';
import { seedDemoCatalogue } from './demo-catalogue';
import { seedDemoUsers } from './demo-users';
import { seedDemoDevices } from './demo-devices';
import { seedDemoShipments } from './demo-shipments';
import { CredentialsService } from '@app/domain';

const ACCOUNT_ROWS: Array<{ key: keyof typeof DEMO_IDS.accounts; name: string; kind: string; status: string }> = [
  { key: 'primary', name: 'Polar Pharma Logistics', kind: 'customer', status: 'active' },
  { key: 'secondary', name: 'Nordic Fresh Foods', kind: 'customer', status: 'active' },
  { key: 'other', name: 'Mediterranean Vaccines Ltd', kind: 'customer', status: 'active' },
  { key: 'suspended', name: 'Suspended Cold Storage Co', kind: 'customer', status: 'suspended' },
  { key: 'internal', name: 'Platform Internal QA', kind: 'internal', status: 'active' },
];

async function seedAccounts({ dataSource }: DemoSeedContext): Promise<void> {
  for (const row of ACCOUNT_ROWS) {
    await seedDemoAccount(dataSource, { id: DEMO_IDS.accounts[row.key], name: row.name, kind: row.kind, status: row.status });
  }
}

async function seedCredentials(context: DemoSeedContext): Promise<void> {
  const { dataSource, secretsKey, fixture } = context;
  const a = DEMO_IDS.accounts;
  const plan: Record<keyof typeof DEMO_IDS.clientIds, { scopes: string[]; accountIds: string[] }> = {
    multi: { scopes: [...ALL_SCOPES], accountIds: [a.primary, a.secondary, a.suspended, a.internal] },
    single: { scopes: [...ALL_SCOPES], accountIds: [a.primary] },
    readonly: { scopes: [...READ_SCOPES], accountIds: [a.primary] },
    other: { scopes: [...ALL_SCOPES], accountIds: [a.other] },
  };
  const credentials = new CredentialsService(dataSource);
  for (const key of Object.keys(plan) as Array<keyof typeof plan>) {
    const clientId = DEMO_IDS.clientIds[key];
    const secret = demoSecret(secretsKey, clientId);
    const existing = await credentials.findByClientId(clientId);
    if (!existing) {
      await credentials.create({
        name: `Demo ${key} integration`,
        clientId,
        secret,
        scopes: plan[key].scopes,
        accountIds: plan[key].accountIds,
        ownerAccountId: plan[key].accountIds[0],
      });
    }
    fixture.credentials[key] = {
      client_id: clientId,
      client_secret: secret,
      scopes: plan[key].scopes,
      account_ids: plan[key].accountIds,
    };
  }
}

const steps: DemoSeedStep[] = [seedAccounts, seedCredentials, seedDemoUsers, seedDemoCatalogue, seedDemoDevices, seedDemoShipments];

export function registerDemoSeedStep(step: DemoSeedStep): void {
  if (!steps.includes(step)) steps.push(step);
}

/** Creates the demo tenant idempotently and returns the fixture document of DESIGN §7. */
export async function seedDemo(dataSource: DataSource, secretsKey: Buffer, publicBaseUrl: string): Promise<DemoFixture> {
  const fixture: DemoFixture = {
    base_url: `${publicBaseUrl}/api/public/v1`,
    accounts: Object.fromEntries(Object.entries(DEMO_IDS.accounts).map(([key, id]) => [key, toAccountId(id)])) as DemoFixture['accounts'],
    credentials: {} as DemoFixture['credentials'],
  };
  const context: DemoSeedContext = { dataSource, secretsKey, fixture };
  for (const step of steps) await step(context);
  return fixture;
}

export async function isDatabaseEmpty(dataSource: DataSource): Promise<boolean> {
  return (await countAccounts(dataSource)) === 0;
}
