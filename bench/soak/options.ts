export interface SoakOptions {
  minutes: number;
  /** Seconds per sampling window. */
  sampleSeconds: number;
  /** Seconds of the capacity measurement (all three loads at once, closed loop). */
  capacitySeconds: number;
  /** Fixed steady rates (skip the capacity measurement for that load when all three are given). */
  rateReads: number | null;
  rateIngest: number | null;
  rateEvents: number | null;
  /** Webhook endpoints every soak event is delivered to. */
  endpoints: number;
  adminUrl: string;
  amqpUrl: string;
}

export const SOAK_USAGE = `npm run soak -- --minutes N [--sample-seconds S] [--capacity-seconds C] [--rate-reads R] [--rate-ingest P] [--rate-events D]
  --minutes           length of the steady run (default 30)
  --sample-seconds    sampling window (default: 15 s for runs of 10 minutes or more, else 10 s)
  --capacity-seconds  length of the capacity measurement, all loads at once (default 20)
  --rate-reads        steady api reads per second (default: half the measured capacity)
  --rate-ingest       steady points per second over RabbitMQ (default: half the measured capacity)
  --rate-events       steady webhook deliveries per second (events × endpoints; default: half the measured capacity)
  --endpoints         webhook endpoints per event (default 10)
Environment: BENCH_POSTGRES_URL (default postgresql://postgres@127.0.0.1:5432/postgres), AMQP_URL.`;

function positive(flags: Map<string, string>, name: string, fallback: number | null, integer = false): number | null {
  const text = flags.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) throw new Error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, not ${text}`);
  return value;
}

/** Accepts `--name value` and `--name=value`. */
export function parseSoakOptions(argv: readonly string[], env: NodeJS.ProcessEnv): SoakOptions | 'help' {
  const flags = new Map<string, string>();
  const known = ['minutes', 'sample-seconds', 'capacity-seconds', 'rate-reads', 'rate-ingest', 'rate-events', 'endpoints'];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match || !known.includes(match[1])) throw new Error(`unknown argument ${arg}\n${SOAK_USAGE}`);
    let value = match[2];
    if (value === undefined) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`--${match[1]} needs a value\n${SOAK_USAGE}`);
      i++;
    }
    flags.set(match[1], value);
  }
  const minutes = positive(flags, 'minutes', 30) ?? 30;
  return {
    minutes,
    sampleSeconds: positive(flags, 'sample-seconds', minutes >= 10 ? 15 : 10) ?? 15,
    capacitySeconds: positive(flags, 'capacity-seconds', 20) ?? 20,
    rateReads: positive(flags, 'rate-reads', null),
    rateIngest: positive(flags, 'rate-ingest', null),
    rateEvents: positive(flags, 'rate-events', null),
    endpoints: positive(flags, 'endpoints', 10, true) ?? 10,
    adminUrl: env.BENCH_POSTGRES_URL || 'postgresql://postgres@127.0.0.1:5432/postgres',
    amqpUrl: env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672',
  };
}
