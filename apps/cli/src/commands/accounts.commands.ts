import type { Command } from 'commander';
import { AccountInputError, AccountsAdminService } from '@app/domain';
import { CliError, output, withContext } from '../cli-context';

export function registerAccountCommands(program: Command): void {
  program
    .command('accounts:create')
    .description('Create a customer company account (tenant)')
    .requiredOption('--name <name>', 'display name')
    .option('--kind <kind>', 'customer | demo | internal', 'customer')
    .option('--status <status>', 'active | suspended | closed', 'active')
    .option('--plan <plan>', 'subscription plan', 'standard')
    .option('--email <email>', 'contact e-mail')
    .option('--json', 'machine-readable output')
    .action(async (options: { name: string; kind: string; status: string; plan: string; email?: string; json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        try {
          const account = await new AccountsAdminService(dataSource).create({
            name: options.name,
            kind: options.kind as never,
            status: options.status as never,
            subscriptionPlan: options.plan,
            contactEmail: options.email ?? null,
          });
          output(
            Boolean(options.json),
            { id: account.id, name: account.name, kind: account.kind, status: account.status },
            `Account created: ${account.id} (${account.name})`,
          );
        } catch (error) {
          if (error instanceof AccountInputError) throw new CliError(error.message);
          throw error;
        }
      });
    });
}
