import { join } from 'node:path';
import type { ReceiverCommand, ReceiverReply } from '../support/https-receiver';
import { ServerProcess } from './server-process';

const ASK_TIMEOUT_MS = 30_000;

/** The harness's handle on the HTTPS receiver child process. */
export class Receiver {
  private constructor(
    readonly process: ServerProcess,
    readonly ports: number[],
  ) {}

  /** `answerAfterMs`: each answer waits this long (0: at once). */
  static async start(root: string, tls: { keyFile: string; certFile: string }, endpoints: number, answerAfterMs = 0): Promise<Receiver> {
    const process = ServerProcess.start({
      name: 'receiver',
      script: join(root, 'dist/bench/support/https-receiver.js'),
      env: { PATH: globalThis.process.env.PATH },
      args: [tls.keyFile, tls.certFile, String(endpoints), String(answerAfterMs)],
      ipc: true,
    });
    const ready = await process.firstMessage<ReceiverReply>();
    if (ready.type !== 'ready') throw new Error('receiver did not start');
    return new Receiver(process, ready.ports);
  }

  private ask<T extends ReceiverReply['type']>(command: ReceiverCommand, type: T): Promise<Extract<ReceiverReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      // A receiver that never answers (a command it does not know, a stale build) fails the scenario instead of hanging the run.
      const timer = setTimeout(() => {
        this.process.child.off('message', listen);
        reject(new Error(`the receiver did not answer '${command.type}' within ${ASK_TIMEOUT_MS} ms`));
      }, ASK_TIMEOUT_MS);
      const listen = (message: ReceiverReply): void => {
        if (message.type !== type) return;
        clearTimeout(timer);
        this.process.child.off('message', listen);
        resolve(message as Extract<ReceiverReply, { type: T }>);
      };
      this.process.child.on('message', listen);
      this.process.send(command);
    });
  }

  async count(): Promise<number> {
    return (await this.ask({ type: 'count' }, 'count')).total;
  }

  /** TLS connections the receiver accepted so far (never reset). */
  async connections(): Promise<number> {
    return (await this.ask({ type: 'connections' }, 'connections')).total;
  }

  async reset(): Promise<void> {
    await this.ask({ type: 'reset' }, 'reset');
  }

  /** First receipts (event id, epoch ms) since the last call, and the total deliveries so far. */
  async take(): Promise<{ entries: Array<[string, number]>; total: number }> {
    const reply = await this.ask({ type: 'take' }, 'take');
    return { entries: reply.entries, total: reply.total };
  }

  /** Deliveries per event id since the last reset. */
  async tally(): Promise<Map<string, number>> {
    return new Map((await this.ask({ type: 'tally' }, 'tally')).entries);
  }

  /** Distinct event ids per endpoint key (host:port/path, see ledger.ts receiverKey) over the receiver's life. */
  async ledger(): Promise<Map<string, number>> {
    return new Map((await this.ask({ type: 'ledger' }, 'ledger')).entries);
  }

  /** The most requests in flight at once per endpoint key (host:port/path) since the last reset. */
  async peaks(): Promise<Map<string, number>> {
    return new Map((await this.ask({ type: 'peaks' }, 'peaks')).entries);
  }

  async receipts(): Promise<Map<string, number>> {
    return new Map((await this.ask({ type: 'receipts' }, 'receipts')).entries);
  }
}
