import type { ClaimPosition } from '@app/webhooks';

/**
 * Where this process's claims walk the endpoints with pending deliveries: a ring ordered by the
 * endpoint's hash, then its id (migration WebhookClaimRing). A claim visits a window of it after
 * the cursor and answers where the next one starts (null: it reached the end of the ring, the next
 * starts at the beginning), so a claim costs its window however many endpoints have work, and
 * endpoints are served round-robin. A pump claims window after window while claims come back
 * short, until it has been once round the ring from where it started.
 */
export class ClaimCursor {
  private after: ClaimPosition | null = null;
  private roundStart: ClaimPosition | null = null;
  private wrapped = false;

  /** The position the next claim starts after (null: at the start of the ring). */
  get position(): ClaimPosition | null {
    return this.after;
  }

  /** A pump begins: its claims may go once round the ring from here. */
  beginRound(): void {
    this.roundStart = this.after;
    this.wrapped = false;
  }

  /** Moves to where a claim said the next one starts; answers whether the round has now visited every endpoint. */
  advance(resumeAfter: ClaimPosition | null): boolean {
    this.after = resumeAfter;
    if (resumeAfter === null) {
      const wentRound = this.roundStart === null || this.wrapped;
      this.wrapped = true;
      return wentRound;
    }
    return this.wrapped && this.roundStart !== null && compareRingPositions(resumeAfter, this.roundStart) >= 0;
  }
}

/** Orders positions as the claim's index does: ring hash (a signed int), then the endpoint id as PostgreSQL orders uuids (its canonical lowercase hex, byte by byte). */
export function compareRingPositions(a: ClaimPosition, b: ClaimPosition): number {
  if (a.ring !== b.ring) return a.ring < b.ring ? -1 : 1;
  if (a.endpointId === b.endpointId) return 0;
  return a.endpointId < b.endpointId ? -1 : 1;
}
