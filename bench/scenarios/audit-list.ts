import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AUDIT_QUERIES } from '@app/database';
import { alternate, cpuPerUnit, medianOf, type SideRun } from '../harness/alternate';
import { timed } from '../harness/load';
import type { ResultRow } from '../harness/report';
import { nowMs, percentile } from '../harness/stats';
import { auditActorId, auditSpan, seedAuditTrail, type AuditTrailSpan } from '../seed/audit';
import { createTenant, fetchToken } from '../seed/tenant';
import type { BenchContext, Scenario } from './scenario';

/** Records per account: the issue's 1 M and 10 M; quick runs 100 k and 1 M (the same tenfold step). */
const SIZES = { full: [1_000_000, 10_000_000], quick: [100_000, 1_000_000] } as const;
/** Two years of records, one monthly partition each (25 with the current month). */
const MONTHS = 24;
const PAGE = 50;
const LIMIT = 1.2;
const TARGET = `p50 at the larger size ≤ ${LIMIT} × the smaller`;

interface ListPage {
  key: string;
  label: string;
  /** Query string of GET /audit-events/ (without `?`). */
  query: string;
  /** The same filters as list statement parameters $3..$8. */
  params: [string | null, string | null, string | null, string | null, string | null, string | null];
}

/** A panel user who made about 1 % of the changes (the seed's actor pick is skewed). */
const ACTOR = 15;

/** First page; a resource type within one month (7 to 6 months ago); one actor; a rare resource type (1 %) alone. */
function listPages(span: AuditTrailSpan): ListPage[] {
  const month = 30.4375 * 86_400_000;
  const from = new Date(span.to.getTime() - 7 * month).toISOString();
  const until = new Date(span.to.getTime() - 6 * month).toISOString();
  const actor = auditActorId(ACTOR);
  return [
    { key: 'first', label: 'first page, no filter', query: `limit=${PAGE}`, params: [null, null, null, null, null, null] },
    {
      key: 'type-range',
      label: 'resource_type=shipment, one month 7–6 months back',
      query: `limit=${PAGE}&resource_type=shipment&from=${encodeURIComponent(from)}&until=${encodeURIComponent(until)}`,
      params: ['shipment', null, null, null, from, until],
    },
    { key: 'actor', label: 'actor = one panel user (≈1 % of records)', query: `limit=${PAGE}&actor=${actor}`, params: [null, null, actor, null, null, null] },
    { key: 'rare-type', label: 'resource_type=api_credential (≈1 % of records), no time range', query: `limit=${PAGE}&resource_type=api_credential`, params: ['api_credential', null, null, null, null, null] },
  ];
}

interface Trail {
  size: number;
  accountId: string;
  token: string;
}

/** What EXPLAIN (ANALYZE, BUFFERS) says of the list statement for one page: the database's own share. */
export interface ListPlan {
  executionMs: number;
  planningMs: number;
  pages: number;
  /** Node types from the top, with the index each scan reads (deduplicated), e.g. "Limit > Merge Append > Index Scan (audit_events_account_time) ×25". */
  shape: string;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the real list statement (AUDIT_QUERIES.list) for one page of the
 * account, the second of two runs on one connection: the first warms its catalogue cache (planning
 * over the partitions costs several times more on a fresh connection).
 */
export async function explainListPage(db: DataSource, accountId: string, page: ListPage): Promise<ListPlan> {
  const runner = db.createQueryRunner();
  try {
    await explainOnce(runner, accountId, page);
    return await explainOnce(runner, accountId, page);
  } finally {
    await runner.release();
  }
}

async function explainOnce(db: Pick<DataSource, 'query'>, accountId: string, page: ListPage): Promise<ListPlan> {
  const rows = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${AUDIT_QUERIES.list.text}`, [accountId, PAGE + 1, ...page.params, null, null])) as Array<{
    'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number }>;
  }>;
  const [top] = rows[0]['QUERY PLAN'];
  return {
    executionMs: top['Execution Time'],
    planningMs: top['Planning Time'],
    pages: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
    shape: planShape(top.Plan),
  };
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

function planShape(node: PlanNode): string {
  const name = (n: PlanNode): string => (n['Index Name'] ? `${n['Node Type']} (${n['Index Name'].replace(/^audit_events_\d{6}_/, '…_')})` : n['Node Type']);
  const parts: string[] = [];
  let current: PlanNode | undefined = node;
  while (current) {
    const children: PlanNode[] = current.Plans ?? [];
    if (children.length > 1) {
      const counts = new Map<string, number>();
      for (const child of children) counts.set(name(child), (counts.get(name(child)) ?? 0) + 1);
      parts.push(`${name(current)} > [${[...counts].map(([n, c]) => `${n} ×${c}`).join(', ')}]`);
      break;
    }
    parts.push(name(current));
    current = children[0];
  }
  return parts.join(' > ');
}

/** `n` sequential GETs of one URL; each must answer 200 with a full page. Milliseconds each. */
async function latencies(url: string, token: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = nowMs();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    times.push(nowMs() - start);
    if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
    const count = (JSON.parse(text) as { data: unknown[] }).data.length;
    if (count !== PAGE) throw new Error(`GET ${url}: ${count} records, expected a full page of ${PAGE}`);
  }
  return times;
}

/**
 * GET /audit-events/ (issue 30 item 4): one account with 1 M audit records and one with 10 M
 * (quick: 100 k and 1 M), spread over 24 monthly partitions, seeded straight into audit_events.
 * Per round and account, each page below is fetched by one client, one request at a time; the
 * two accounts alternate (which goes first swaps every round). Judged: p50 at 10 M within 1.2 ×
 * of p50 at 1 M, per page. EXPLAIN (ANALYZE, BUFFERS) of the list statement at each size tells
 * where the time goes (the notes, and the log).
 */
export const auditList: Scenario = {
  name: 'audit-list',
  target: TARGET,
  unavailable: () => null,
  probe: async (db) => {
    const accountId = randomUUID();
    const span = auditSpan(Date.now(), 3);
    await db.query(`INSERT INTO accounts (id, name, kind, status) VALUES ($1, 'Bench audit probe', 'customer', 'active')`, [accountId]);
    await seedAuditTrail(db, accountId, 2_000, span);
    for (const page of listPages(span)) await explainListPage(db, accountId, page);
  },
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const sizes = ctx.options.quick ? SIZES.quick : SIZES.full;
    const span = auditSpan(Date.now(), MONTHS);
    const trails: Trail[] = [];
    for (const size of sizes) {
      const tenant = await createTenant(ctx.db, `Bench audit ${size.toLocaleString('en-US')}`);
      const started = nowMs();
      await seedAuditTrail(ctx.db, tenant.accountId, size, span, ctx.log);
      ctx.log(`  seeded ${size.toLocaleString('en-US')} audit records over ${MONTHS} months in ${((nowMs() - started) / 1000).toFixed(0)} s`);
      trails.push({ size, accountId: tenant.accountId, token: await fetchToken(ctx.api.base, tenant) });
    }
    const size = (await ctx.db.query(`SELECT pg_size_pretty(sum(pg_total_relation_size(inhrelid))) AS size FROM pg_inherits WHERE inhparent = 'audit_events'::regclass`)) as Array<{ size: string }>;
    ctx.log(`  audit_events with its indexes: ${size[0].size}`);

    const pages = listPages(span);
    const requests = ctx.options.quick ? 40 : 100;
    const url = (page: ListPage): string => `${ctx.api.base}/audit-events/?${page.query}`;
    for (const trail of trails) for (const page of pages) await latencies(url(page), trail.token, 10);

    const side = (trail: Trail) => async (): Promise<SideRun> => {
      const extra: Record<string, number> = {};
      const run = await timed(ctx.api.process, async () => {
        for (const page of pages) {
          const times = await latencies(url(page), trail.token, requests);
          extra[`${page.key}.p50`] = percentile(times, 50);
          extra[`${page.key}.p99`] = percentile(times, 99);
        }
        return pages.length * requests;
      });
      return { value: extra['first.p50'], cpuSeconds: run.cpuSeconds, units: run.units, extra };
    };
    const [small, large] = trails;
    const runs = await alternate(ctx.options.rounds, side(large), side(small), ctx.log, (r) =>
      pages.map((p) => `${p.key} p50 ${(r.extra?.[`${p.key}.p50`] ?? NaN).toFixed(1)} / p99 ${(r.extra?.[`${p.key}.p99`] ?? NaN).toFixed(1)} ms`).join(', '),
    );

    const rows: ResultRow[] = [];
    const sizeLabel = (n: number): string => (n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1_000} k`);
    const versus = `${sizeLabel(large.size)} records (project) vs ${sizeLabel(small.size)} (baseline)${ctx.options.quick ? ' — quick mode: 100 k / 1 M instead of 1 M / 10 M' : ''}`;
    for (const page of pages) {
      const plans = { large: await explainListPage(ctx.db, large.accountId, page), small: await explainListPage(ctx.db, small.accountId, page) };
      ctx.log(`  EXPLAIN ${page.key}: ${sizeLabel(large.size)}: ${plans.large.executionMs.toFixed(2)} ms, ${plans.large.pages} pages; ${sizeLabel(small.size)}: ${plans.small.executionMs.toFixed(2)} ms, ${plans.small.pages} pages; ${plans.large.shape}`);
      const note = `database (EXPLAIN ANALYZE): ${plans.large.executionMs.toFixed(2)} ms + ${plans.large.planningMs.toFixed(2)} ms planning, ${plans.large.pages} buffer pages at ${sizeLabel(large.size)}; ${plans.small.executionMs.toFixed(2)} ms + ${plans.small.planningMs.toFixed(2)} ms, ${plans.small.pages} pages at ${sizeLabel(small.size)}; plan: ${plans.large.shape}`;
      for (const quantile of ['p50', 'p99'] as const) {
        const key = `${page.key}.${quantile}`;
        const project = medianOf(runs.project, (r) => r.extra?.[key] ?? NaN);
        const baseline = medianOf(runs.baseline, (r) => r.extra?.[key] ?? NaN);
        const judged = quantile === 'p50';
        rows.push({
          scenario: 'audit-list',
          metric: `GET /audit-events/ ${page.label}, ${quantile} latency (one client, ${requests} requests per round), ${versus}`,
          unit: 'ms',
          project,
          baseline,
          ratio: project / baseline,
          target: judged ? TARGET : 'reported',
          pass: judged ? project / baseline <= LIMIT : null,
          status: judged ? 'measured' : 'info',
          cpu: judged && page.key === 'first' ? { per: 'request', project: cpuPerUnit(runs.project), baseline: cpuPerUnit(runs.baseline) } : undefined,
          rounds: ctx.options.rounds,
          note: judged ? note : undefined,
          samples: { project: runs.project.map((r) => r.extra?.[key] ?? NaN), baseline: runs.baseline.map((r) => r.extra?.[key] ?? NaN) },
        });
      }
    }
    return rows;
  },
};
