/**
 * Where this process's claims walk the endpoints with pending deliveries. A claim visits a window
 * of them after the cursor and answers where the next one starts (null: it reached the last one,
 * the next starts from the first), so endpoints are served round-robin and a claim costs its
 * window, however many endpoints have work. A pump claims window after window while claims come
 * back short, until it has been once round the ring from where it started.
 */
export class ClaimCursor {
  private after: string | null = null;
  private roundStart: string | null = null;
  private wrapped = false;

  /** The endpoint the next claim starts after (null: from the first). */
  get position(): string | null {
    return this.after;
  }

  /** A pump begins: its claims may go once round the ring from here. */
  beginRound(): void {
    this.roundStart = this.after;
    this.wrapped = false;
  }

  /** Moves to where a claim said the next one starts; answers whether the round has now visited every endpoint. */
  advance(resumeAfter: string | null): boolean {
    this.after = resumeAfter;
    if (resumeAfter === null) {
      const wentRound = this.roundStart === null || this.wrapped;
      this.wrapped = true;
      return wentRound;
    }
    // Endpoint ids compare as PostgreSQL orders uuids: canonical lowercase hex, byte by byte.
    return this.wrapped && this.roundStart !== null && resumeAfter >= this.roundStart;
  }
}
