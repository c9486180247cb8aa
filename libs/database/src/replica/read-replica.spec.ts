import type { Pool } from 'pg';
import { parseLsn, ReadReplica, type WalPositionProbes } from './read-replica';

describe('parseLsn', () => {
  it('orders WAL positions across the 32-bit boundary', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  });
});

describe('ReadReplica.primaryFailed', () => {
  /** Two servers on paper: the primary answers until `stop`, the replica replays what it was told. */
  const servers = () => {
    const state = { primaryUp: true, replayed: '0/100', received: '0/100' };
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const positions: WalPositionProbes = {
      wal: () => (state.primaryUp ? Promise.resolve(state.received) : Promise.reject(refused())),
      replay: () => Promise.resolve({ recovery: true, replayed: state.replayed, received: state.received }),
    };
    return { state, positions, refused };
  };
  let replica: ReadReplica | undefined;
  afterEach(async () => {
    await replica?.close();
    replica = undefined;
  });
  const start = async (positions: WalPositionProbes): Promise<ReadReplica> => {
    // Probed by hand only (never started); the primary pool is only handed to the fake `wal` probe.
    replica = new ReadReplica('postgres://nobody@127.0.0.1:1/none', () => ({}) as Pool, { maxLagMs: 3000, probeIntervalMs: 60_000, positions });
    await replica.probe();
    return replica;
  };

  it('hands the statement to the replica when the last probe, taken under write load, saw replay a moment behind receipt', async () => {
    const { state, positions, refused } = servers();
    const router = await start(positions);
    state.received = '0/200'; // written and shipped, not yet replayed when the probe looked
    await router.probe();
    expect(router.state()).toMatchObject({ usable: true, primary: 'up' });
    // The primary goes away; the replica, cut off, replays the rest.
    state.primaryUp = false;
    state.replayed = '0/200';
    await expect(router.primaryFailed(refused())).resolves.toBe(true);
    expect(router.state()).toMatchObject({ usable: true, primary: 'down' });
  });

  it('keeps the statement failed when the replica really has not replayed what it received', async () => {
    const { state, positions, refused } = servers();
    const router = await start(positions);
    state.received = '0/200';
    await router.probe();
    state.primaryUp = false; // and replay stays behind (paused, or far behind)
    await expect(router.primaryFailed(refused())).resolves.toBe(false);
    expect(router.state()).toMatchObject({ usable: false, primary: 'down' });
  });

  it('does not fail over on an error that is not about reaching the server', async () => {
    const { positions } = servers();
    const router = await start(positions);
    await expect(router.primaryFailed(Object.assign(new Error('duplicate key'), { code: '23505' }))).resolves.toBe(false);
    expect(router.primaryReachable).toBe(true);
  });
});
