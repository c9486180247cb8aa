import { spawn, type ChildProcess } from 'node:child_process';
import { createDatabase, dropDatabase } from '../support/database';
import { freePort } from '../support/app-process';
import { uniqueName } from '../support/test-env';
import { waitFor } from '../support/wait';

/** `npm start` (scripts/start.js) outside production: a missing neighbour gets one line saying what to do. */
describe('npm start without RabbitMQ', () => {
  const name = uniqueName('cc_start_hint');
  let child: ChildProcess | null = null;
  let output = '';

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await dropDatabase(name);
  });

  it('says once, in one line, how to start RabbitMQ or set AMQP_URL, and still serves the API docs', async () => {
    const [port, opsPort, dispatcherPort, closedPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const { DATABASE_DIRECT_URL: _direct, DB_PREPARED_STATEMENTS: _prepared, DB_SESSION_PARAMETERS: _session, ...inherited } = process.env;
    child = spawn(process.execPath, ['scripts/start.js'], {
      env: {
        ...inherited,
        // A database of its own: npm start seeds the demo tenant into an empty one.
        DATABASE_URL: await createDatabase(name),
        AMQP_URL: `amqp://guest:guest@127.0.0.1:${closedPort}`,
        PORT: String(port),
        OPS_PORT: String(opsPort),
        DISPATCHER_PORT: String(dispatcherPort),
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const running = child;
    await waitFor(
      'the api to serve the docs',
      async () => {
        if (running.exitCode !== null) throw new Error(`npm start exited ${running.exitCode}:\n${output}`);
        return (await fetch(`http://127.0.0.1:${port}/api/public/v1/docs/`).catch(() => null))?.ok;
      },
      120_000,
    );
    const hints = output.split('\n').filter((line) => line.includes('RabbitMQ is not reachable'));
    expect(hints).toEqual([
      expect.stringMatching(
        new RegExp(`^\\[start\\] RabbitMQ is not reachable at amqp://\\*\\*\\*@127\\.0\\.0\\.1:${closedPort} \\(connect ECONNREFUSED [^)]+\\): start it \\(.*rabbitmq-server -detached.*\\) or set AMQP_URL; until then`),
      ),
    ]);
    expect(output).not.toContain('guest:guest');
  }, 180_000);
});
