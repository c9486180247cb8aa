import type { DataSource } from 'typeorm';
import { DATABASE_QUERIES } from '../../libs/database/src/database.queries';
import { migrateDatabase, type ReadReplica } from '@app/database';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../../bench/harness/replicated-postgres';
import { ReadReplicaService } from '../../apps/api/src/database/read-replica.service';
import { API, startApi, type TestApi } from '../support/api';
import { createCredential, dataSourceOf, tokenFor } from '../support/fixtures';
import { registerDevices } from '../support/devices';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';
import { newKey } from '../support/catalogue';
import { waitFor } from '../support/wait';

/**
 * The api with a streaming read replica (DATABASE_REPLICA_URL) of a primary of its own: both made
 * here (initdb + `pg_basebackup -R`, bench/harness/replicated-postgres.ts), so that replay can be
 * paused (`pg_wal_replay_pause()`) and either server stopped. Lists may lag by at most
 * DATABASE_REPLICA_MAX_LAG_MS and never more; detail reads and a credential's reads after its own
 * write never lag; a replica that is away or too far behind hands its reads to the primary and
 * /health/ready says so (200: degraded, not down); a primary stopped for 30 s under load answers
 * 503 with Retry-After for what needs it, keeps the replica reads going, and recovers by itself
 * with nothing lost from the outbox.
 */
const MAX_LAG_MS = 3000;

describe('read replica', () => {
  let cluster: ReplicatedPostgres;
  let api: TestApi;
  let db: DataSource;
  let replica: ReadReplica;
  let world: ShipmentWorld;
  /** A second credential of the same account: its reads are not pinned by the first one's writes. */
  let other: { Authorization: string };

  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    await migrateDatabase(cluster.primaryUrl());
    api = await startApi({
      DATABASE_URL: cluster.primaryUrl(),
      DATABASE_DIRECT_URL: cluster.primaryUrl(),
      DATABASE_REPLICA_URL: cluster.replicaUrl(),
      DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      DB_PREPARED_STATEMENTS: 'on',
      DB_SESSION_PARAMETERS: 'on',
      // The outage test's two readers ask ~40 times a second, past the default 1,200 a minute per account.
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    db = dataSourceOf(api.app);
    replica = api.app.get(ReadReplicaService).replica as ReadReplica;
    world = await shipmentWorld(api, 40);
    const credential = await createCredential(db, [world.tenant.accountId]);
    other = { Authorization: `Bearer ${await tokenFor(api.app, credential)}` };
  }, 180_000);

  afterAll(async () => {
    await api?.close();
    cluster?.destroy();
  }, 60_000);

  /** The replica has replayed everything and the router knows it. */
  const caughtUp = async (): Promise<void> => {
    await cluster.resumeReplay();
    await cluster.waitForReplay();
    await replica.probe();
    await replica.probe();
    await waitFor('the replica in use', () => replica.state().usable, 15_000);
  };

  const deviceIds = async (auth: { Authorization: string }): Promise<Set<string>> => {
    const res = await api.http.get(`${API}/devices/?limit=100`).set(auth).expect(200);
    return new Set((res.body as { data: Array<{ id: string }> }).data.map((d) => d.id));
  };

  const shipmentIds = async (auth: { Authorization: string }): Promise<number[]> => {
    const res = await api.http.get(`${API}/shipments/?limit=100`).set(auth).expect(200);
    return (res.body as { data: Array<{ id: number }> }).data.map((s) => s.id);
  };

  const readiness = async (): Promise<{ status: number; body: { status: string; degraded?: string[] } }> => {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the public answer is shared for a second
    const res = await api.raw.get('/health/ready');
    return { status: res.status, body: res.body as { status: string; degraded?: string[] } };
  };

  it('serves lists from the replica, never staler than DATABASE_REPLICA_MAX_LAG_MS, and says when the replica falls behind', async () => {
    await caughtUp();
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok' } });
    await cluster.pauseReplay();
    const pausedAt = Date.now();
    /** Devices registered (committed on the primary) with the time their commit returned. */
    const written: Array<{ id: string; at: number }> = [];
    const register = async (): Promise<void> => {
      const [device] = await registerDevices(db, world.tenant.accountId, 1);
      written.push({ id: device.id, at: Date.now() });
    };
    await register();
    const before = { ...replica.routed };
    // Within the bound the list comes from the paused replica: it lacks the new device.
    const early = await deviceIds(other);
    expect(replica.routed.replica).toBeGreaterThan(before.replica);
    expect(early.has(written[0].id)).toBe(false);

    // Until well past the bound: every answer holds every device committed more than the bound before it was asked.
    let staleAnswers = 0;
    let answers = 0;
    while (Date.now() - pausedAt < MAX_LAG_MS * 2 + 1000) {
      await register();
      const askedAt = Date.now();
      const seen = await deviceIds(other);
      answers += 1;
      const due = written.filter((w) => w.at <= askedAt - MAX_LAG_MS);
      expect(due.filter((w) => !seen.has(w.id))).toEqual([]);
      if (written.some((w) => !seen.has(w.id))) staleAnswers += 1;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(staleAnswers).toBeGreaterThan(0); // the replica did answer (stale, within the bound)
    expect(answers).toBeGreaterThan(staleAnswers); // and the primary took over past the bound
    // Past the bound: read on the primary, and readiness stays 200 but names the degraded replica.
    const late = await deviceIds(other);
    expect(written.every((w) => late.has(w.id))).toBe(true);
    expect(replica.state()).toMatchObject({ usable: false, reason: expect.stringMatching(/lagging/) });
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok', degraded: ['database-replica'] } });
    const ops = await fetch(`http://127.0.0.1:${api.config.opsPort}/health/ready`).catch(() => null);
    if (ops) expect(JSON.stringify(await ops.json())).toMatch(/lagging .* its reads run on the primary/);

    await caughtUp();
    const resumed = await deviceIds(other);
    expect(written.every((w) => resumed.has(w.id))).toBe(true);
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok' } });
  }, 60_000);

  it('lets a credential read its own write at once (list and detail), and never serves a detail read stale', async () => {
    await caughtUp();
    await cluster.pauseReplay();
    const shipment = await createShipment(api, world.tenant, shipmentBody(world.refs, [world.devices[0]], { reference: 'RYW-1' }));
    const own = await shipmentIds(world.tenant.auth);
    expect(own).toContain(shipment.id);
    // Another credential: the detail is read on the primary…
    await api.http.get(`${API}/shipments/${shipment.id}/`).set(other).expect(200);
    // …while its list comes from the paused replica (within the bound): the replica really is behind.
    const before = replica.routed.replica;
    const theirs = await shipmentIds(other);
    expect(replica.routed.replica).toBeGreaterThan(before);
    expect(theirs).not.toContain(shipment.id);
    await caughtUp();
    // Once the replica has it, the writer's reads go back to the replica.
    const after = replica.routed.replica;
    const again = await shipmentIds(world.tenant.auth);
    expect(again).toContain(shipment.id);
    expect(replica.routed.replica).toBeGreaterThan(after);
  }, 60_000);

  it('keeps a writer on the primary while its commit is still in the WAL buffers (synchronous_commit = off)', async () => {
    await caughtUp();
    // This cluster runs with synchronous_commit = off: the request answers before its commit is
    // written out. With the WAL writer held, the commit stays in the buffers while the replica
    // replays everything the primary has written, so a probe of the write position would call
    // the replica fresh as of after the write.
    // A device of its own: the outage test below ships world.devices from the second on.
    const [device] = await registerDevices(db, world.tenant.accountId, 1);
    const release = await cluster.holdWalWriter();
    let shipment: { id: number };
    try {
      shipment = await createShipment(api, world.tenant, shipmentBody(world.refs, [device.id], { reference: 'RYW-BUFFERED' }));
      await replica.probe();
      await replica.probe();
      // The replica really lacks it: another credential's list, read there, does not show it…
      const before = replica.routed.replica;
      const theirs = await shipmentIds(other);
      expect(replica.routed.replica).toBeGreaterThan(before);
      expect(theirs).not.toContain(shipment.id);
      // …while the writer's list is read on the primary and does.
      const own = await shipmentIds(world.tenant.auth);
      expect(own).toContain(shipment.id);
    } finally {
      release();
    }
    await caughtUp();
    const after = replica.routed.replica;
    const again = await shipmentIds(world.tenant.auth);
    expect(again).toContain(shipment.id);
    expect(replica.routed.replica).toBeGreaterThan(after);
  }, 60_000);

  it('measures the primary by its insert position, less the page header an idle replica never replays', async () => {
    // The probe's arithmetic on given insert positions (the statement as the api runs it, its
    // pg_current_wal_insert_lsn() replaced by the value).
    const probeOf = async (insert: string): Promise<string> => {
      const text = DATABASE_QUERIES.walPosition.text.replace('pg_current_wal_insert_lsn() AS i', '(VALUES ($1::pg_lsn)) AS v(i)');
      expect(text).not.toEqual(DATABASE_QUERIES.walPosition.text);
      const [row] = (await db.query(text, [insert])) as Array<{ lsn: string }>;
      return row.lsn;
    };
    expect(await probeOf('0/1D744C8')).toBe('0/1D744C8'); // inside a page: as it is
    expect(await probeOf('0/1D76018')).toBe('0/1D76000'); // just past a page header (24 bytes)
    expect(await probeOf('0/2000028')).toBe('0/2000000'); // just past a segment's first, long header (40 bytes)
    expect(await probeOf('0/2002028')).toBe('0/2002028'); // 40 bytes into a later page: a record ends there
    // And on the live primary: an idle replica that has replayed everything is not behind it
    // (caughtUp's waitForReplay waits for the replica to replay this statement's position, and fails if it never does).
    await caughtUp();
  });

  it('reads on the primary while the replica is down, says so, and returns to it by itself', async () => {
    await caughtUp();
    cluster.stopReplica();
    const [device] = await registerDevices(db, world.tenant.accountId, 1);
    expect((await deviceIds(other)).has(device.id)).toBe(true);
    await replica.probe();
    expect(replica.state()).toMatchObject({ usable: false, reason: expect.stringMatching(/unreachable|failed/) });
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok', degraded: ['database-replica'] } });
    cluster.startReplica();
    await caughtUp();
    const before = replica.routed.replica;
    expect((await deviceIds(other)).has(device.id)).toBe(true);
    expect(replica.routed.replica).toBeGreaterThan(before);
    expect(await readiness()).toEqual({ status: 200, body: { status: 'ok' } });
  }, 90_000);

  it('answers 503 with Retry-After for writes while the primary is stopped for 30 s under load, keeps the replica reads, recovers, and loses no outbox event', async () => {
    await caughtUp();
    interface Outcome {
      kind: 'read' | 'write';
      phase: 'before' | 'down' | 'after';
      status: number;
      retryAfter?: string;
      ms: number;
    }
    const outcomes: Outcome[] = [];
    let phase: Outcome['phase'] = 'before';
    let running = true;
    let nextDevice = 1;
    const created: number[] = [];
    const timed = async (kind: Outcome['kind'], send: () => Promise<{ status: number; headers: Record<string, string> }>): Promise<number> => {
      const startedIn = phase;
      const started = Date.now();
      let status: number;
      let retryAfter: string | undefined;
      try {
        const res = await send();
        status = res.status;
        retryAfter = res.headers['retry-after'];
      } catch {
        status = 0; // no answer within the client's 15 s: a hang
      }
      outcomes.push({ kind, phase: startedIn === phase ? phase : startedIn, status, retryAfter, ms: Date.now() - started });
      return status;
    };
    const reader = async (): Promise<void> => {
      while (running) {
        await timed('read', () => api.raw.get(`${API}/devices/?limit=50`).set(other).timeout(15_000));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const writer = async (): Promise<void> => {
      while (running) {
        const device = world.devices[nextDevice];
        let body: { id?: number } = {};
        const status = await timed('write', async () => {
          const res = await api.raw
            .post(`${API}/shipments/create/`)
            .set(world.tenant.auth)
            .set('Idempotency-Key', newKey())
            .send(shipmentBody(world.refs, [device], { reference: `OUTAGE-${nextDevice}` }))
            .timeout(15_000);
          body = res.body as { id?: number };
          return res;
        });
        if (status === 201 && body.id !== undefined) {
          created.push(body.id);
          nextDevice += 1;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const load = Promise.all([reader(), reader(), writer()]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    phase = 'down';
    cluster.stopPrimary();
    const stoppedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    cluster.startPrimary();
    phase = 'after';
    const startedAt = Date.now();
    const writesBefore = created.length;
    await waitFor('a write to succeed after the primary is back', () => created.length > writesBefore, 30_000);
    const recoveredMs = Date.now() - startedAt;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    running = false;
    await load;

    const unexpected = outcomes.filter((o) => ![200, 201, 503].includes(o.status));
    expect(unexpected).toEqual([]);
    expect(outcomes.filter((o) => o.status === 503 && !/^\d+$/.test(o.retryAfter ?? ''))).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(10_000);
    const down = outcomes.filter((o) => o.phase === 'down');
    const downReads = down.filter((o) => o.kind === 'read');
    const downWrites = down.filter((o) => o.kind === 'write');
    // The replica kept answering the lists, from the first moment (the credential check fails over too)…
    expect(downReads.length).toBeGreaterThan(0);
    expect(downReads.filter((o) => o.status !== 200)).toEqual([]);
    // …and the writes were refused with 503, not lost in a 500 or a hang.
    expect(downWrites.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    expect(recoveredMs).toBeLessThan(30_000);
    process.stdout.write(
      `primary outage: ${Math.round((startedAt - stoppedAt) / 1000)} s; reads during it ${downReads.length} (${downReads.filter((o) => o.status === 200).length} × 200); ` +
        `writes ${downWrites.length} (${downWrites.filter((o) => o.status === 503).length} × 503); first write after restart in ${recoveredMs} ms\n`,
    );

    // The outbox: every shipment created has its event row, and the relay publishes them all.
    const events = await waitFor(
      'the relay to publish every outbox event',
      async () => {
        const [row] = (await db.query(
          `SELECT count(*) FILTER (WHERE published_at IS NULL)::int AS pending, count(*) FILTER (WHERE aggregate_type = 'shipment' AND aggregate_id = ANY($1::text[]))::int AS ours FROM outbox_events`,
          [created.map(String)],
        )) as Array<{ pending: number; ours: number }>;
        return row.pending === 0 ? row : false;
      },
      60_000,
    );
    expect(events.ours).toBeGreaterThanOrEqual(created.length);
  }, 180_000);
});
