import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/app-process';
import { waitFor } from '../support/wait';

/** Debian's rabbitmq-server package: the scripts themselves, not /usr/sbin's wrappers (those su to the rabbitmq user and reset HOME). */
const RABBITMQ_BIN = process.env.RABBITMQ_BIN_DIR ?? '/usr/lib/rabbitmq/bin';
const START_TIMEOUT_MS = 90_000;
const CTL_TIMEOUT_MS = 60_000;

/** One node of the test's own cluster: its own name, ports and data directory, never the machine's broker. */
export interface ClusterNode {
  /** Erlang node name, e.g. cc_ab12cd_1@localhost. */
  name: string;
  /** AMQP port on 127.0.0.1. */
  port: number;
  /** Erlang distribution port (inter-node traffic and the CLI). */
  distPort: number;
  dir: string;
  /** The running rabbitmq-server script, leader of its own process group; null while the node is down. */
  process: ChildProcess | null;
}

function execFileText(file: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, timeoutMs = CTL_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file.split('/').pop()} ${args.join(' ')} failed: ${error.message}\n${stderr}${stdout}`.trim()));
      else resolve(stdout);
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port right now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A RabbitMQ cluster of `size` nodes on this machine, for `npm run test:cluster`: every node has
 * its own name (`cc_<run>_<n>@localhost`), AMQP and distribution ports, and RABBITMQ_MNESIA_BASE,
 * log and config files under one temp directory; they share an Erlang cookie kept there as
 * `$HOME/.erlang.cookie` (HOME points at the directory for the nodes and for rabbitmqctl). Nodes
 * 2..n join node 1 with `rabbitmqctl join_cluster`. `kill` SIGKILLs a node's whole process group
 * (the script, beam.smp and its helpers); `restart` starts it again on its data directory, where
 * it rejoins the cluster. `stop` halts every node and removes the directory. The machine's own
 * node (rabbit@localhost, 5672) is never addressed.
 */
export class RabbitCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: ClusterNode[],
  ) {}

  static async start(size = 3): Promise<RabbitCluster> {
    // CLUSTER_TEST_TMPDIR: where scripts/test-cluster.js looks afterwards for nodes left running.
    const dir = mkdtempSync(join(process.env.CLUSTER_TEST_TMPDIR ?? tmpdir(), 'coldchain-cluster-'));
    const run = randomBytes(3).toString('hex');
    writeFileSync(join(dir, '.erlang.cookie'), randomBytes(24).toString('hex'));
    chmodSync(join(dir, '.erlang.cookie'), 0o400);
    const nodes: ClusterNode[] = [];
    for (let i = 1; i <= size; i++) {
      const nodeDir = join(dir, `node${i}`);
      mkdirSync(nodeDir);
      nodes.push({ name: `cc_${run}_${i}@localhost`, port: await freePort(), distPort: await freePort(), dir: nodeDir, process: null });
    }
    const cluster = new RabbitCluster(dir, nodes);
    try {
      for (const node of nodes) cluster.writeConfig(node);
      await Promise.all(nodes.map((node) => cluster.launch(node)));
      const [first, ...others] = nodes;
      for (const node of others) {
        await cluster.ctl(node, 'stop_app');
        await cluster.ctl(node, 'join_cluster', first.name);
        await cluster.ctl(node, 'start_app');
      }
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** amqp:// URL of one node (guest: allowed from 127.0.0.1). */
  url(node: ClusterNode): string {
    return `amqp://guest:guest@127.0.0.1:${node.port}`;
  }

  /** Every node's URL, comma-separated in the given order: AMQP_URL for the apps. */
  urlList(order: ClusterNode[] = this.nodes): string {
    return order.map((node) => this.url(node)).join(',');
  }

  get running(): ClusterNode[] {
    return this.nodes.filter((node) => node.process !== null);
  }

  /** rabbitmqctl against one node (another running one when `node` is omitted). */
  ctl(node: ClusterNode | null, ...args: string[]): Promise<string> {
    const target = node ?? this.running[0];
    if (!target) throw new Error('no node of the cluster is running');
    return execFileText(join(RABBITMQ_BIN, 'rabbitmqctl'), ['-q', '-n', target.name, ...args], this.env(target), target.dir);
  }

  /**
   * `rabbitmqctl list_queues <columns>` as rows, asked of a running node. On a busy machine the
   * CLI may answer with nothing at all (a listing that timed out inside the node): asked again.
   */
  private async queueRows<T>(...columns: string[]): Promise<T[]> {
    return waitFor(`rabbitmqctl list_queues ${columns.join(' ')}`, async () => {
      const text = (await this.ctl(null, 'list_queues', ...columns, '--formatter', 'json')).trim();
      return text === '' ? undefined : (JSON.parse(text) as T[]);
    }, CTL_TIMEOUT_MS);
  }

  /** The node that leads a quorum queue now: a running one (a queue electing its new leader is waited for). */
  async leaderOf(queue: string): Promise<ClusterNode> {
    return waitFor(`a running leader of ${queue}`, async () => {
      const row = (await this.queueRows<{ name: string; leader: string }>('name', 'leader')).find((r) => r.name === queue);
      const node = row && this.nodes.find((n) => n.name === row.leader);
      return node?.process ? node : undefined;
    }, CTL_TIMEOUT_MS);
  }

  /** How many members of each quorum queue are online (`rabbitmqctl list_queues name online`). */
  async membersOnline(): Promise<Map<string, number>> {
    const rows = await this.queueRows<{ name: string; online: string[] | string }>('name', 'online');
    return new Map(rows.map((row) => [row.name, Array.isArray(row.online) ? row.online.length : 0]));
  }

  /** SIGKILLs the node's process group: no shutdown, no goodbye to its peers or clients. */
  async kill(node: ClusterNode): Promise<void> {
    const child = node.process;
    if (!child?.pid) return;
    node.process = null;
    const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
    await waitFor(`${node.name}'s port ${node.port} to close`, async () => !(await listening(node.port)), 10_000);
  }

  /** Starts a killed node again on its own data directory; resolves once it is back in the cluster. */
  async restart(node: ClusterNode): Promise<void> {
    if (node.process) return;
    await this.launch(node);
  }

  /** Halts every node (SIGKILL for one that does not stop) and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        if (!node.process) return;
        await this.ctl(node, 'stop').catch(() => undefined);
        await this.kill(node).catch(() => undefined);
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The last lines a node logged (for failure messages). */
  log(node: ClusterNode, lines = 40): string {
    try {
      return readFileSync(join(node.dir, 'server.out'), 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private env(node: ClusterNode): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      // The shared cookie: $HOME/.erlang.cookie, for the node and for rabbitmqctl.
      HOME: this.dir,
      RABBITMQ_NODENAME: node.name,
      RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
      RABBITMQ_NODE_PORT: String(node.port),
      RABBITMQ_DIST_PORT: String(node.distPort),
      // Never the machine's /etc/rabbitmq files (they name rabbit@localhost and port 5672).
      RABBITMQ_CONF_ENV_FILE: join(node.dir, 'rabbitmq-env.conf'),
      RABBITMQ_CONFIG_FILE: join(node.dir, 'rabbitmq.conf'),
      RABBITMQ_ADVANCED_CONFIG_FILE: join(node.dir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(node.dir, 'enabled_plugins'),
      RABBITMQ_MNESIA_BASE: join(node.dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(node.dir, 'log'),
      RABBITMQ_PID_FILE: join(node.dir, 'pid'),
      ERL_EPMD_ADDRESS: '127.0.0.1',
      // One scheduler and no busy-waiting: three nodes share a small, busy machine.
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1} +S 1:1 +sbwt none +sbwtdcpu none +sbwtdio none',
    };
  }

  private writeConfig(node: ClusterNode): void {
    writeFileSync(join(node.dir, 'rabbitmq-env.conf'), '');
    writeFileSync(join(node.dir, 'enabled_plugins'), '[].\n');
    writeFileSync(
      join(node.dir, 'rabbitmq.conf'),
      [
        `listeners.tcp.default = 127.0.0.1:${node.port}`,
        // The broker's own disk alarm must not block publishers because the machine's disk is busy.
        'disk_free_limit.absolute = 50MB',
        'log.file.level = info',
        'log.console = false',
        '',
      ].join('\n'),
    );
  }

  private async launch(node: ClusterNode): Promise<void> {
    const out = openSync(join(node.dir, 'server.out'), 'a');
    // detached: a process group of its own, so that `kill` reaches beam.smp behind the script.
    const child = spawn(join(RABBITMQ_BIN, 'rabbitmq-server'), [], { cwd: node.dir, env: this.env(node), detached: true, stdio: ['ignore', out, out] });
    closeSync(out);
    child.unref();
    node.process = child;
    // The process group, for scripts/test-cluster.js to SIGKILL should this process die without `stop`.
    writeFileSync(join(node.dir, 'group'), String(child.pid));
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    try {
      // The AMQP listener opens at the end of the boot (every CLI call costs seconds on a busy machine).
      await waitFor(`${node.name} to accept AMQP on ${node.port}`, async () => exited || (await listening(node.port)), START_TIMEOUT_MS);
      if (exited) throw new Error(`${node.name} exited at start`);
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- ${node.name} log:\n${this.log(node)}`, { cause: error });
    }
  }
}
