import type { Command } from 'commander';
import { AisIngestService } from '@app/domain';
import { output, withContext } from '../cli-context';
import { ingestNdjson } from './telemetry.commands';

export function registerAisCommands(program: Command): void {
  program
    .command('ais:ingest')
    .description('Ingest AIS vessel positions from stdin (NDJSON: one {"mmsi"|"imo", "recorded_at", "latitude", "longitude", "speed_knots"?, "course_deg"?} per line)')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const { alarms: _alarms, ...summary } = await ingestNdjson(process.stdin, new AisIngestService(dataSource));
        const human = [
          `accepted: ${summary.accepted}  duplicate: ${summary.duplicate}  rejected: ${summary.rejected}`,
          ...summary.errors.slice(0, 10).map((e) => `  line ${e.line}: ${e.reason}`),
        ].join('\n');
        output(Boolean(options.json), summary, human);
      });
    });
}
