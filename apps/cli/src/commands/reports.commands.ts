import type { Command } from 'commander';
import { DeviceReportError, generateDeviceReports, presentReport, ReportsService, runPendingReportJobs } from '@app/domain';
import { CliError, output, withContext } from '../cli-context';
import { UUID_PATTERN, ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';

function instant(value: string, option: string): Date {
  if (!ZONED_TIMESTAMP_PATTERN.test(value) || Number.isNaN(new Date(value).getTime())) {
    throw new CliError(`${option} must be an ISO 8601 timestamp with a time zone, e.g. 2025-07-01T00:00:00Z`);
  }
  return new Date(value);
}

export function registerReportCommands(program: Command): void {
  program
    .command('reports:generate')
    .description("Generate a device report (PDF and CSV of the points) for the device's current owner, over [from, to)")
    .requiredOption('--device <id>', 'device id')
    .requiredOption('--from <time>', 'start of the period (ISO 8601 with zone)')
    .requiredOption('--to <time>', 'end of the period, exclusive (ISO 8601 with zone)')
    .option('--json', 'machine-readable output')
    .action(async (options: { device: string; from: string; to: string; json?: boolean }) => {
      if (!UUID_PATTERN.test(options.device)) throw new CliError('--device must be a device id (UUID)');
      const from = instant(options.from, '--from');
      const to = instant(options.to, '--to');
      if (from.getTime() >= to.getTime()) throw new CliError('--to must be later than --from');
      await withContext(async ({ dataSource }) => {
        const generated = await dataSource
          .transaction((manager) => generateDeviceReports(manager, options.device.toLowerCase(), { from, to }))
          .catch((error: unknown) => {
            throw error instanceof DeviceReportError ? new CliError(error.message) : error;
          });
        const rows = await new ReportsService(dataSource).byIds(generated.accountId, [generated.pdf, generated.csv]);
        const reports = rows.map(presentReport);
        output(
          Boolean(options.json),
          { account_id: generated.accountId, reports },
          reports.map((r) => `${r.id}  ${r.name}  ${r.size_bytes} bytes  sha256 ${r.sha256}`).join('\n'),
        );
      });
    });

  program
    .command('reports:run-jobs')
    .description('Generate the pending reports of completed shipments now (the api does this continuously)')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const run = await runPendingReportJobs(dataSource, 1000);
        output(Boolean(options.json), run, `generated: ${run.generated.length}  failed: ${run.failed.length}`);
      });
    });
}
