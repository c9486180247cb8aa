export type BatchMessage = { ok: true; items: unknown[] } | { ok: false; reason: string };

/**
 * A feed message on a RabbitMQ ingestion queue: one item, or `{"<key>": [...]}` holding at most
 * `max` items. Items are validated later, one by one. Shared by the telemetry and AIS feeds.
 */
export function parseBatchMessage(content: Buffer | string, key: string, noun: string, max: number): BatchMessage {
  let body: unknown;
  try {
    body = JSON.parse(typeof content === 'string' ? content : content.toString('utf8'));
  } catch {
    return { ok: false, reason: 'message body is not valid JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, reason: `message must be a ${noun} object or {"${key}": [...]}` };
  }
  const envelope = body as Record<string, unknown>;
  if (!(key in envelope)) return { ok: true, items: [body] };
  if (Object.keys(envelope).length !== 1) return { ok: false, reason: `a batch message carries only "${key}"` };
  const items = envelope[key];
  if (!Array.isArray(items) || items.length === 0) return { ok: false, reason: `"${key}" must be a non-empty array` };
  if (items.length > max) return { ok: false, reason: `"${key}" holds at most ${max} ${key}` };
  return { ok: true, items };
}
