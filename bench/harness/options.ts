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
  amqpUrl: string;
}

const USAGE = `npm run bench -- [--quick] [--only=a,b] [--rounds=N] [--profile]
  --quick      fewer, shorter rounds (about a minute)
  --only       run only these scenarios (memory is always reported)
  --rounds     alternating rounds per scenario (default 5; quick 3)
  --profile    run the api, the baseline and the dispatcher under node --cpu-prof; writes bench/results/{api,baseline,dispatcher}.cpuprofile, summaries,
               and with one HTTP scenario (--only=api-list) api-vs-baseline-layers.md
Environment: BENCH_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/postgres), AMQP_URL.`;

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
    if (!['quick', 'only', 'rounds', 'profile'].includes(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
  }
  const quick = flags.get('quick') === 'true';
  const rounds = Number(flags.get('rounds') ?? (quick ? 3 : 5));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');
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
    amqpUrl: env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672',
  };
}
