import { eventMessageKey, signEventMessage, verifyEventMessage } from './event-signature';

describe('event message signatures', () => {
  const key = eventMessageKey(Buffer.alloc(32, 7));
  const body = Buffer.from('{"account_id":"a","envelope":{}}');

  it('verifies what it signed, and nothing else', () => {
    const signature = signEventMessage(key, body);
    expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifyEventMessage(key, body, signature)).toBe(true);
    expect(verifyEventMessage(key, Buffer.from(`${body.toString()} `), signature)).toBe(false);
    expect(verifyEventMessage(eventMessageKey(Buffer.alloc(32, 8)), body, signature)).toBe(false);
  });

  it.each([undefined, null, 42, {}, '', 'v1=', `v1=${'0'.repeat(64)}`, 'v1=zz'])('refuses the header %p', (header) => {
    expect(verifyEventMessage(key, body, header)).toBe(false);
  });

  it('derives a key of its own (not the secrets key itself)', () => {
    const secrets = Buffer.alloc(32, 7);
    expect(eventMessageKey(secrets).equals(secrets)).toBe(false);
    expect(eventMessageKey(secrets)).toHaveLength(32);
  });
});
