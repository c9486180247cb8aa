import type { Command } from 'commander';
import type { DataSource } from 'typeorm';
import { detachDeviceLifecycle, DeviceAdminService, DeviceInputError } from '@app/domain';
import { CliError, output, withContext } from '../cli-context';
import { toAccountId } from '@app/vocabulary';

async function run<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof DeviceInputError) throw new CliError(error.message);
    throw error;
  }
}

/** A transfer also ends the device's attachment to the previous owner's active shipment. */
const deviceAdmin = (dataSource: DataSource): DeviceAdminService => new DeviceAdminService(dataSource, detachDeviceLifecycle);

function count(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new CliError(`--count must be an integer (got "${value}")`);
  return parsed;
}

/** Platform-side tracker onboarding: register, approve, transfer to a new owner. */
export function registerDeviceCommands(program: Command): void {
  program
    .command('devices:register')
    .description('Register trackers owned by an account (starts their first lifecycle)')
    .requiredOption('--account <id>', 'owning account id')
    .option('--count <n>', 'how many devices', '1')
    .option('--approved', 'approve them at once (otherwise they stay pending and invisible to the API)')
    .option('--json', 'machine-readable output')
    .action(async (options: { account: string; count: string; approved?: boolean; json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const devices = await run(() =>
          deviceAdmin(dataSource).register({ accountId: toAccountId(options.account), count: count(options.count), approved: Boolean(options.approved) }),
        );
        output(
          Boolean(options.json),
          { devices },
          [`Registered ${devices.length} device(s) for account ${options.account}${options.approved ? ' (approved)' : ' (pending approval)'}:`, ...devices.map((d) => `  ${d.id}  ${d.serial_number}`)].join('\n'),
        );
      });
    });

  program
    .command('devices:approve')
    .description('Approve a registered device: it appears in its owner’s API')
    .argument('<device-id>', 'device id')
    .option('--json', 'machine-readable output')
    .action(async (deviceId: string, options: { json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const approved = await run(() => deviceAdmin(dataSource).approve(deviceId));
        output(Boolean(options.json), approved, `Device ${deviceId} approved.`);
      });
    });

  program
    .command('devices:transfer')
    .description('Give a device to another account: ends the current lifecycle and starts a new one')
    .requiredOption('--device <id>', 'device id')
    .requiredOption('--account <id>', 'new owning account id')
    .option('--json', 'machine-readable output')
    .action(async (options: { device: string; account: string; json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const result = await run(() => deviceAdmin(dataSource).transfer(options.device, toAccountId(options.account)));
        output(
          Boolean(options.json),
          result,
          `Device ${result.device_id} now belongs to ${result.account_id} (lifecycle ${result.lifecycle_id}; previous owner: ${result.previous_account_id ?? 'none'}).`,
        );
      });
    });
}
