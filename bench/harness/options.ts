export interface BenchOptions {
  quick: boolean;
  /** Alternating rounds per scenario (each round: one project run and one baseline run). */
  rounds: number;
  /** Seconds of load per side and round for the autocannon scenarios. */
  loadSeconds: number;
  /** Scenario names to run; empty: all. */
  only: string[];
  /** Start the api with `node --cpu-prof` and summarise the profile at the end. */
  profile: boolean;
  ingestPoints: number;
  /** Webhook events per round (each delivered to every endpoint). */
  webhookEvents: number;
  eventLatencySeconds: number;
  adminUrl: string;
  /**
   * The scenarios run on a throwaway PostgreSQL 15 cluster of their own (own-cluster.ts), unless
   * `--shared-postgres`: then on BENCH_POSTGRES_URL's server, as before issue 26 (and always with --scale).
   */
  ownCluster: boolean;
  amqpUrl: string;
  /** `--scale`: the cost-as-the-data-grows run (bench/scale/) instead of the scenarios. */
  scale: boolean;
  /** `--sizes=a,b,…` (with --scale): telemetry sizes in points; default 1 M, 10 M, 50 M (quick: 1 M, 5 M). */
  sizes: number[] | null;
}

const USAGE = `npm run bench -- [--quick] [--only=a,b] [--rounds=N] [--profile]
       npm run bench -- --scale [--quick] [--sizes=1000000,10000000] [--rounds=N]
  --quick      fewer, shorter rounds (about a minute)
  --only       run only these scenarios (memory is always reported)
  --rounds     alternating rounds per scenario (default 5; quick 3; --scale 3, quick 2)
  --shared-postgres  run on BENCH_POSTGRES_URL's server instead of a throwaway cluster of its own (initdb, BENCHMARKS.md)
  --profile    run the api, the baseline and the dispatcher under node --cpu-prof; writes bench/results/{api,baseline,dispatcher}.cpuprofile, summaries,
               and with one HTTP scenario (--only=api-list) api-vs-baseline-layers.md
  --scale      cost as the data grows: seeds 1 M, 10 M and 50 M telemetry points (quick: 1 M and 5 M) in one
               database and measures reads, ingestion and size at each (BENCHMARKS.md, "Cost as the data grows")
  --sizes      with --scale: the sizes, in points, each a sub-grid of the next (1,000 devices)
Environment: BENCH_PG_BIN (default /usr/lib/postgresql/15/bin: initdb, pg_ctl of the own cluster),
  BENCH_POSTGRES_URL (--scale, --shared-postgres; default postgresql://postgres@127.0.0.1:5432/postgres), AMQP_URL.`;

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument ${arg}\n${USAGE}`);
    flags.set(match[1], match[2] ?? 'true');
  }
  for (const name of flags.keys()) {
    if (!['quick', 'only', 'rounds', 'profile', 'scale', 'sizes', 'shared-postgres'].includes(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
  }
  const quick = flags.get('quick') === 'true';
  const scale = flags.get('scale') === 'true';
  // --scale: each round is hundreds of requests per read and a whole ingest batch per size.
  const defaultRounds = scale ? (quick ? 2 : 3) : quick ? 3 : 5;
  const rounds = Number(flags.get('rounds') ?? defaultRounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');
  if (flags.has('sizes') && !scale) throw new Error('--sizes goes with --scale');
  const sizes = flags.has('sizes') ? (flags.get('sizes') ?? '').split(',').map((s) => Number(s.trim().replace(/_/g, ''))) : null;
  if (sizes && sizes.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error('--sizes: positive whole numbers of points, comma separated');
  return {
    quick,
    rounds,
    loadSeconds: quick ? 3 : 6,
    only: (flags.get('only') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    profile: flags.get('profile') === 'true',
    ingestPoints: quick ? 20_000 : 200_000,
    webhookEvents: quick ? 200 : 1_000,
    eventLatencySeconds: quick ? 5 : 20,
    adminUrl: env.BENCH_POSTGRES_URL || 'postgresql://postgres@127.0.0.1:5432/postgres',
    ownCluster: !scale && flags.get('shared-postgres') !== 'true',
    amqpUrl: env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672',
    scale,
    sizes,
  };
}
