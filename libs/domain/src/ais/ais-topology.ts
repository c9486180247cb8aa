import type { IngestTopology } from '../telemetry';

/**
 * RabbitMQ names of the AIS feed queue, built like the telemetry ones: feeds publish to the
 * exchange (any routing key) or straight to the queue; refused messages go to the dead-letter
 * queue with the reason in their headers.
 */
export function aisTopology(prefix: string): IngestTopology {
  return {
    exchange: `${prefix}.ais`,
    queue: `${prefix}.ais.ingest`,
    deadLetterExchange: `${prefix}.ais.dead`,
    deadLetterQueue: `${prefix}.ais.ingest.dead`,
  };
}
