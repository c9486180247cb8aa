/**
 * RabbitMQ names of the gateway ingestion queue, prefixed like every name on the broker
 * (config `amqpPrefix`). Gateways publish to the exchange (any routing key) or straight to the
 * queue; the dead-letter queue keeps malformed messages with the reason in their headers.
 */
export interface IngestTopology {
  exchange: string;
  queue: string;
  deadLetterExchange: string;
  deadLetterQueue: string;
}

export function ingestTopology(prefix: string): IngestTopology {
  return {
    exchange: `${prefix}.telemetry`,
    queue: `${prefix}.telemetry.ingest`,
    deadLetterExchange: `${prefix}.telemetry.dead`,
    deadLetterQueue: `${prefix}.telemetry.ingest.dead`,
  };
}

/** Header naming why a message was dead-lettered; x-rejections lists per-point reasons. */
export const REJECTION_REASON_HEADER = 'x-rejection-reason';
export const REJECTIONS_HEADER = 'x-rejections';
