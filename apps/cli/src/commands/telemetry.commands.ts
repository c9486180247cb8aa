import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { defaultIngestCollaborators, TelemetryIngestService, type IngestRejection } from '@app/domain';
import { output, withContext } from '../cli-context';

export interface NdjsonIngestSummary {
  lines: number;
  accepted: number;
  duplicate: number;
  rejected: number;
  alarms: number;
  /** The first refusals, by 1-based line number. */
  errors: Array<{ line: number; reason: string }>;
}

const MAX_LISTED_ERRORS = 100;

/** An ingestion service (telemetry points, AIS positions) as the NDJSON reader drives it. */
export interface NdjsonIngestTarget {
  ingest(inputs: readonly unknown[]): Promise<{ accepted: number; duplicate: number; rejections: IngestRejection[]; alarms?: readonly unknown[] }>;
}

/**
 * Streams NDJSON (one item per line) into an ingestion service in batches, so that a file of
 * any size runs in constant memory and never one round trip per item. Blank lines are skipped.
 */
export async function ingestNdjson(input: Readable, service: NdjsonIngestTarget, batchLines = 5000): Promise<NdjsonIngestSummary> {
  const summary: NdjsonIngestSummary = { lines: 0, accepted: 0, duplicate: 0, rejected: 0, alarms: 0, errors: [] };
  const refuse = (line: number, reason: string): void => {
    summary.rejected++;
    if (summary.errors.length < MAX_LISTED_ERRORS) summary.errors.push({ line, reason });
  };
  let batch: Array<{ line: number; value: unknown }> = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const lines = batch.map((b) => b.line);
    const result = await service.ingest(batch.map((b) => b.value));
    batch = [];
    summary.accepted += result.accepted;
    summary.duplicate += result.duplicate;
    summary.alarms += result.alarms?.length ?? 0;
    for (const rejection of result.rejections) refuse(lines[rejection.index], rejection.reason);
  };
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    summary.lines++;
    if (text.trim() === '') continue;
    try {
      batch.push({ line: summary.lines, value: JSON.parse(text) as unknown });
    } catch {
      refuse(summary.lines, 'line is not valid JSON');
    }
    if (batch.length >= batchLines) await flush();
  }
  await flush();
  summary.errors.sort((a, b) => a.line - b.line);
  return summary;
}

export function registerTelemetryCommands(program: Command): void {
  program
    .command('telemetry:ingest')
    .description('Ingest telemetry points from stdin (NDJSON: one {"device_id", "recorded_at", ...} per line)')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const summary = await ingestNdjson(process.stdin, new TelemetryIngestService(dataSource, defaultIngestCollaborators()));
        const human = [
          `accepted: ${summary.accepted}  duplicate: ${summary.duplicate}  rejected: ${summary.rejected}  alarms raised: ${summary.alarms}`,
          ...summary.errors.slice(0, 10).map((e) => `  line ${e.line}: ${e.reason}`),
        ].join('\n');
        output(Boolean(options.json), summary, human);
      });
    });
}
