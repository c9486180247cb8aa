import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIP } from 'node:net';

const TYPE_A = 1;
const TYPE_AAAA = 28;
const RCODE_NXDOMAIN = 3;

/**
 * A tiny authoritative DNS server on loopback (UDP, `node:dgram`), for tests: names in `answers`
 * get their A records, names in `silent` are never answered (a tenant's DNS that stopped
 * responding), every other name is NXDOMAIN. AAAA queries of known names get an empty answer.
 * Counts the queries per name.
 */
export class TestDnsServer {
  private readonly queries = new Map<string, number>();

  private constructor(
    private readonly socket: Socket,
    private readonly answers: Map<string, string[]>,
    private readonly silent: Set<string>,
    private readonly ttlSeconds: number,
  ) {
    socket.on('message', (message, remote) => this.handle(message, remote));
  }

  static async start(options: { answers: Record<string, string[]>; silent: string[]; ttlSeconds?: number }): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    const answers = new Map(Object.entries(options.answers).map(([name, addresses]) => [name.toLowerCase(), addresses]));
    const server = new TestDnsServer(socket, answers, new Set(options.silent.map((n) => n.toLowerCase())), options.ttlSeconds ?? 30);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    return server;
  }

  /** `127.0.0.1:<port>`, as WEBHOOK_DNS_SERVERS takes it. */
  get address(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  queriesFor(name: string): number {
    return this.queries.get(name.toLowerCase()) ?? 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private handle(message: Buffer, remote: RemoteInfo): void {
    const question = parseQuestion(message);
    if (!question) return;
    const name = question.name.toLowerCase();
    this.queries.set(name, (this.queries.get(name) ?? 0) + 1);
    if (this.silent.has(name)) return;
    const known = this.answers.get(name);
    const records =
      known?.filter((address) => (question.type === TYPE_A && isIP(address) === 4) || (question.type === TYPE_AAAA && isIP(address) === 6)) ?? [];
    const reply = buildReply(message, question.end, known ? 0 : RCODE_NXDOMAIN, records, this.ttlSeconds);
    this.socket.send(reply, remote.port, remote.address);
  }
}

function parseQuestion(message: Buffer): { name: string; type: number; end: number } | null {
  if (message.length < 17 || message.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length && message[offset] !== 0) {
    const length = message[offset];
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += length + 1;
  }
  offset += 1;
  if (offset + 4 > message.length) return null;
  return { name: labels.join('.'), type: message.readUInt16BE(offset), end: offset + 4 };
}

function buildReply(query: Buffer, questionEnd: number, rcode: number, addresses: string[], ttl: number): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  header.writeUInt16BE(0x8180 | rcode, 2); // response, recursion desired and available
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((address) => {
    const data = isIP(address) === 4 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(data.length === 4 ? TYPE_A : TYPE_AAAA, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const parts = (value: string) => (value ? value.split(':') : []);
  const groups = [...parts(head), ...Array(8 - parts(head).length - parts(tail).length).fill('0'), ...parts(tail)];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
