import type { DataSource } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

/** Fixed identifiers make the demo fixture idempotent: a re-run finds and keeps what exists. */
export const DEMO_IDS = {
  accounts: {
    primary: '00000000-0000-7000-8000-00000000a001',
    secondary: '00000000-0000-7000-8000-00000000a002',
    other: '00000000-0000-7000-8000-00000000a003',
    suspended: '00000000-0000-7000-8000-00000000a004',
    internal: '00000000-0000-7000-8000-00000000a005',
  },
  clientIds: {
    multi: 'demo-multi',
    single: 'demo-single',
    readonly: 'demo-readonly',
    other: 'demo-other',
  },
} as const;

export interface DemoCredential {
  client_id: string;
  client_secret: string;
  scopes: string[];
  account_ids: string[];
}

export interface DemoFixture {
  base_url: string;
  accounts: Record<keyof typeof DEMO_IDS.accounts, AccountId>;
  credentials: Record<keyof typeof DEMO_IDS.clientIds, DemoCredential>;
  [section: string]: unknown;
}

export interface DemoSeedContext {
  dataSource: DataSource;
  secretsKey: Buffer;
  fixture: DemoFixture;
}

/** A later feature adds its part of the fixture by registering a step. */
export type DemoSeedStep = (context: DemoSeedContext) => Promise<void>;
