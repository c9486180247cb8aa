import type { DomainEventMessage } from '@app/events';
import { UUID_PATTERN as UUID } from '@app/vocabulary';


export class MalformedEventMessage extends Error {}

/** Checks the wire message (DomainEventMessage) before anything is stored from it. */
export function parseEventMessage(content: Buffer): DomainEventMessage {
  let value: unknown;
  try {
    value = JSON.parse(content.toString('utf8'));
  } catch {
    throw new MalformedEventMessage('not JSON');
  }
  const message = value as Partial<DomainEventMessage> | null;
  const envelope = message?.envelope;
  if (!message || typeof message.account_id !== 'string' || !UUID.test(message.account_id)) throw new MalformedEventMessage('account_id missing or not a UUID');
  if (!envelope || typeof envelope !== 'object') throw new MalformedEventMessage('envelope missing');
  if (typeof envelope.id !== 'string' || !UUID.test(envelope.id)) throw new MalformedEventMessage('envelope.id missing or not a UUID');
  if (typeof envelope.type !== 'string' || envelope.type === '') throw new MalformedEventMessage('envelope.type missing');
  if (typeof envelope.created_at !== 'string' || Number.isNaN(Date.parse(envelope.created_at))) throw new MalformedEventMessage('envelope.created_at missing');
  if (!envelope.data || typeof envelope.data !== 'object') throw new MalformedEventMessage('envelope.data missing');
  return { account_id: message.account_id, envelope };
}
