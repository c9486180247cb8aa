import type { Command } from 'commander';
import { CredentialInputError, CredentialsService } from '@app/domain';
import { UUID_PATTERN as UUID } from '@app/vocabulary';
import { CliError, list, output, withContext } from '../cli-context';


export function registerCredentialCommands(program: Command): void {
  program
    .command('credentials:create')
    .description('Create an API credential; the client secret is printed once and never again')
    .requiredOption('--name <name>', 'what the integration is')
    .requiredOption('--accounts <ids>', 'comma-separated account ids (the allow-list)')
    .option('--scopes <scopes>', 'comma- or space-separated scopes (default: all)')
    .option('--json', 'machine-readable output')
    .action(async (options: { name: string; accounts: string; scopes?: string; json?: boolean }) => {
      const accountIds = list(options.accounts);
      const bad = accountIds.filter((id) => !UUID.test(id));
      if (bad.length > 0) throw new CliError(`--accounts: not account ids: ${bad.join(', ')}`);
      const scopes = options.scopes ? options.scopes.split(/[\s,]+/).filter(Boolean) : undefined;
      await withContext(async ({ dataSource }) => {
        try {
          const created = await new CredentialsService(dataSource).create({ name: options.name, accountIds, scopes });
          output(
            Boolean(options.json),
            created,
            [
              `Credential created for ${created.account_ids.length} account(s).`,
              `client_id:     ${created.client_id}`,
              `client_secret: ${created.client_secret}`,
              'The secret is shown only now: store it in a backend secret vault.',
            ].join('\n'),
          );
        } catch (error) {
          if (error instanceof CredentialInputError) throw new CliError(error.message);
          throw error;
        }
      });
    });

  program
    .command('credentials:revoke')
    .description('Revoke a credential; its tokens stop working on their next call')
    .argument('<client-id>', 'client id (or credential id)')
    .option('--json', 'machine-readable output')
    .action(async (clientId: string, options: { json?: boolean }) => {
      await withContext(async ({ dataSource }) => {
        const revoked = await new CredentialsService(dataSource).revoke(clientId);
        if (!revoked) throw new CliError(`no active credential ${clientId}`);
        output(Boolean(options.json), { client_id: clientId, revoked: true }, `Credential ${clientId} revoked.`);
      });
    });
}
