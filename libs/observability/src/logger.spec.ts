import { Writable } from 'node:stream';
import { createLogger } from './logger';

describe('logger redaction', () => {
  it('never writes an endpoint secret, current or replaced by a rotation, in any of its field names', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    // Under NODE_ENV=test the logger is silent unless LOG_LEVEL is set.
    const saved = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'info';
    const logger = createLogger('info', 'redaction-test', sink);
    if (saved === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = saved;
    logger.info({ delivery: { id: 'd1', secret_ciphertext: 'v1.current-ct', previous_secret_ciphertext: 'v1.previous-ct' } }, 'claimed');
    logger.info({ webhook: { url: 'https://x', secret: 'whsec_current', previousSecret: 'whsec_previous' } }, 'sending');
    const written = lines.join('');
    expect(written).toContain('"id":"d1"');
    for (const secret of ['current-ct', 'previous-ct', 'whsec_current', 'whsec_previous']) expect(written).not.toContain(secret);
  });
});
