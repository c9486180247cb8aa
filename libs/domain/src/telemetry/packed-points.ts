/**
 * A page of points as PostgreSQL packs it (telemetry.queries.ts `packedPoints`): one text value
 * instead of one row per point, so a 1,000-point page costs the driver one field, not 8,000.
 */
export interface PackedPoints {
  /** Points in the text (the page's limit + 1 at most). */
  count: number;
  /**
   * One line per point, in time order, joined by '\n': `<epoch ms>|<the rest of its JSON object>`,
   * e.g. `1741608000000|,"temperature":5.5,"humidity":null,…,"longitude":4.89}`, numbers as
   * PostgreSQL writes them.
   */
  points: string;
}

/** The points of a packed page: each one's whole epoch milliseconds and the rest of its JSON object. */
export function unpackPoints(packed: PackedPoints): Array<{ recordedMs: number; rest: string }> {
  if (packed.count === 0 || packed.points === '') return [];
  return packed.points.split('\n').map((line) => {
    const bar = line.indexOf('|');
    return { recordedMs: Number(line.slice(0, bar)), rest: line.slice(bar + 1) };
  });
}
