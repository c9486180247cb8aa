import { isDeepStrictEqual } from 'node:util';

/**
 * Proof that both sides do the same work: the same records, field for field. Links differ only
 * by origin (each side builds them from its own PUBLIC_BASE_URL).
 */
export function assertSameBody(what: string, project: unknown, baseline: unknown): void {
  const data = (body: unknown): unknown => (typeof body === 'object' && body !== null && 'data' in body ? (body as { data: unknown }).data : body);
  if (!isDeepStrictEqual(data(project), data(baseline))) {
    throw new Error(`${what}: the baseline's body differs from the api's — they would not be doing the same work`);
  }
}
