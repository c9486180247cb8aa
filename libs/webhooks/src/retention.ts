/** Spec §6.1 and §8: the panel shows the last 100 attempts of an endpoint; older ones are not kept. */
export const ATTEMPTS_KEPT_PER_ENDPOINT = 100;

export interface WebhookPruneResult {
  /** Attempts beyond the newest 100 of their endpoint. */
  attempts: number;
  /** Closed deliveries past the retention period that no kept attempt points at. */
  deliveries: number;
  /** Bodies deleted from closed deliveries past the retention period (the row stays for the attempt log). */
  bodies: number;
  /** Hourly delivery health rows older than 8 days (the panel charts the last 7). */
  hourlyStats: number;
}

// pruneWebhookHistory, which enforces these bounds, is in ./history-pruning.
