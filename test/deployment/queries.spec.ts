import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QUERY_DIR, ROOT, loadQueryFamilies, queryFileName, readIfExists, renderQueryFile, sourceFiles, type LoadedFamily } from '../support/query-files';

/** Every table of the schema (partitions of telemetry_points included), and those holding a tenant's rows. */
const TABLES = [
  'accounts', 'ais_positions', 'alarms', 'audit_chain_anchors', 'audit_chain_heads', 'audit_events', 'alert_presets', 'api_credential_accounts', 'api_credentials', 'carriers',
  'device_lifecycles', 'device_maintenance_records', 'devices', 'idempotency_records', 'invitation_emails', 'locations',
  'outbox_events', 'panel_sessions', 'rate_limit_counters', 'receivers', 'report_files', 'reports', 'shipment_devices',
  'shipment_events', 'shipment_report_jobs', 'shipment_shares', 'shipment_templates', 'shipments', 'telemetry_points',
  'telemetry_points_default', 'user_invitations', 'users', 'webhook_attempts', 'webhook_deliveries', 'webhook_dispatchers', 'webhook_endpoint_hourly_stats',
  'webhook_endpoints', 'webhook_slot_grants',
];
const TENANT_TABLES = new Set([
  'alarms', 'audit_events', 'alert_presets', 'api_credential_accounts', 'carriers', 'device_lifecycles', 'idempotency_records', 'locations',
  'outbox_events', 'panel_sessions', 'receivers', 'reports', 'shipment_devices', 'shipment_events', 'shipment_report_jobs',
  'shipment_shares', 'shipment_templates', 'shipments', 'user_invitations', 'users', 'webhook_attempts', 'webhook_deliveries',
  'webhook_endpoint_hourly_stats', 'webhook_endpoints',
]);

const tablePattern = TABLES.join('|');
const MENTIONED = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?: IF (?:NOT )?EXISTS)?|ONLY)\\s+(${tablePattern})\\b`, 'gi');
const WRITTEN = new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE|ALTER\\s+TABLE|CREATE\\s+TABLE(?: IF NOT EXISTS)?)\\s+(?:ONLY\\s+)?(${tablePattern})\\b`, 'gi');

function tablesIn(text: string, pattern: RegExp): Set<string> {
  return new Set([...text.matchAll(pattern)].map((match) => match[1].toLowerCase()));
}

/** Files allowed to hand SQL to a driver: the one SQL helper, migrations, the LISTEN client. */
const DRIVER_FILES = [/^libs\/database\/src\/sql\/sql\.ts$/, /^libs\/database\/src\/migrations\//, /^libs\/database\/src\/data-source\.ts$/, /^libs\/database\/src\/pg-listener\.ts$/, /^libs\/database\/src\/audit\/audited-pool\.ts$/];

describe('committed queries and table owners', () => {
  let families: LoadedFamily[];

  beforeAll(async () => {
    families = await loadQueryFamilies();
  });

  it('keeps queries/*.sql identical to the statements in the code (npm run queries:write)', () => {
    const expected = new Map(families.map((family) => [queryFileName(family), renderQueryFile(family)]));
    if (process.env.WRITE_QUERIES === '1') {
      mkdirSync(QUERY_DIR, { recursive: true });
      for (const file of readdirSync(QUERY_DIR)) if (file.endsWith('.sql') && !expected.has(file)) rmSync(join(QUERY_DIR, file));
      for (const [file, text] of expected) writeFileSync(join(QUERY_DIR, file), text);
    }
    const drift: string[] = [];
    for (const [file, text] of expected) if (readIfExists(join(QUERY_DIR, file)) !== text) drift.push(`queries/${file} differs from the code`);
    for (const file of readdirSync(QUERY_DIR)) if (file.endsWith('.sql') && !expected.has(file)) drift.push(`queries/${file} has no repository`);
    expect(drift).toEqual([]);
  });

  it('gives every table exactly one owner', () => {
    const owners = new Map<string, string[]>();
    for (const family of families) for (const table of family.tables) owners.set(table, [...(owners.get(table) ?? []), family.owner]);
    const problems = TABLES.flatMap((table) => {
      const owner = owners.get(table) ?? [];
      return owner.length === 1 ? [] : [`${table}: ${owner.length ? owner.join(', ') : 'no owner'}`];
    });
    const unknown = [...owners.keys()].filter((table) => !TABLES.includes(table));
    expect({ problems, unknown }).toEqual({ problems: [], unknown: [] });
  });

  it('writes a table only from its owner (or its owner\'s group) and reads only declared tables', () => {
    const problems: string[] = [];
    const groupOf = new Map(families.flatMap((family) => family.tables.map((table) => [table, family.group] as const)));
    for (const family of families) {
      for (const query of family.queries) {
        for (const table of tablesIn(query.text, WRITTEN)) {
          const sameGroup = family.group !== null && groupOf.get(table) === family.group;
          if (!family.tables.includes(table) && !sameGroup && !family.writes.includes(table)) problems.push(`${family.owner}.${query.name} writes ${table}, owned elsewhere`);
        }
        for (const table of tablesIn(query.text, MENTIONED)) {
          if (![...family.tables, ...family.reads, ...family.writes].includes(table)) problems.push(`${family.owner}.${query.name} reads undeclared ${table}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('lets only the demo fixture write other owners\' tables, and keeps seed statements out of production families', () => {
    const writers = families.filter((family) => family.writes.length > 0).map((family) => `${family.owner} (${family.file})`);
    const seeds = families.flatMap((family) => (family.owner === 'demo' ? [] : family.queries.filter((query) => /demo/i.test(query.name)).map((query) => `${family.owner}.${query.name}`)));
    expect({ writers, seeds }).toEqual({ writers: ['demo (libs/domain/src/demo/demo.queries.ts)'], seeds: [] });
  });

  it('filters every tenant statement on the caller\'s account ($1) and declares the cross-tenant ones', () => {
    const problems: string[] = [];
    for (const family of families) {
      for (const query of family.queries) {
        const tenantTables = [...tablesIn(query.text, MENTIONED)].filter((table) => TENANT_TABLES.has(table));
        const filtered = /account_id\s*=\s*\$1\b/.test(query.text);
        // An INSERT of the tenant's row: account_id is the first column and $1 its value.
        const inserted = /^INSERT INTO \w+\s*\(\s*account_id\b[^)]*\)\s*(VALUES\s*\(\s*|SELECT\s+)\$1\b/i.test(query.text);
        if (query.scope === 'tenant' && !filtered && !inserted) problems.push(`${family.owner}.${query.name} is a tenant statement without account_id = $1`);
        if (query.scope === 'tenant' && tenantTables.length === 0 && !/owner_account_id\s*=\s*\$1\b/.test(query.text)) problems.push(`${family.owner}.${query.name} is declared tenant but touches no tenant table`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('makes an AccountId only where the tenant is decided', () => {
    // The tenant guard (verified token), the panel's session (signed-in user), a verified share
    // link, the operator's command line, the dispatcher (tenant of a committed delivery row) and
    // the demo seed. Anything else receives an AccountId from them.
    const producers = new Set([
      'apps/api/src/auth/tenant.guard.ts',
      'apps/api/src/panel/session/panel-sessions.repository.ts',
      'apps/api/src/panel/sign-in/sign-in.service.ts',
      'libs/domain/src/shipments/share.service.ts',
      'apps/cli/src/commands/audit.commands.ts',
      'apps/cli/src/commands/devices.commands.ts',
      'apps/cli/src/commands/users.commands.ts',
      'apps/cli/src/commands/webhooks.commands.ts',
      'libs/webhooks/src/delivery-queue.ts',
      'apps/cli/src/demo/demo-seed.ts',
      'libs/vocabulary/src/account-id.ts',
    ]);
    const makers = [...sourceFiles('apps'), ...sourceFiles('libs')].filter((file) => /\btoAccountId\s*\(/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(makers.filter((file) => !producers.has(file))).toEqual([]);
  });

  it('runs SQL only in repositories, through the one SQL helper', () => {
    const problems: string[] = [];
    for (const file of [...sourceFiles('apps'), ...sourceFiles('libs')]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const driverFile = DRIVER_FILES.some((pattern) => pattern.test(file));
      if (!driverFile && /\b(?:manager|entityManager|dataSource|queryRunner|runner|executor|db|pool|client|connection)\.query\s*[<(]/.test(text)) problems.push(`${file}: runs SQL without the SQL helper`);
      if (/\b(execSql|poolQuery)\b/.test(text)) problems.push(`${file}: uses a retired SQL helper`);
      if (!file.endsWith('.repository.ts') && /\bsql\.(rows|first|count|run)\s*[<(]/.test(text)) problems.push(`${file}: runs SQL outside a repository`);
      if (!file.endsWith('.repository.ts') && !driverFile && /\.(getRepository|createQueryBuilder)\s*\(/.test(text)) problems.push(`${file}: uses TypeORM repositories outside a repository`);
      if (!file.endsWith('.queries.ts') && /\bdefineQueries\s*\(/.test(text) && !file.startsWith('libs/database/src/sql/')) problems.push(`${file}: declares statements outside a *.queries.ts file`);
    }
    expect(problems).toEqual([]);
  });
});
