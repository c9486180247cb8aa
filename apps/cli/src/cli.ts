import { userInfo } from 'node:os';
import { Command, CommanderError } from 'commander';
import { runWithAuditContext } from '@app/database';
import { ConfigError } from '@app/config';
import { CliError } from './cli-context';
import { registerAccountCommands } from './commands/accounts.commands';
import { registerAisCommands } from './commands/ais.commands';
import { registerAuditCommands } from './commands/audit.commands';
import { registerCredentialCommands } from './commands/credentials.commands';
import { registerDatabaseCommands } from './commands/database.commands';
import { registerDemoCommands } from './commands/demo.commands';
import { registerDeviceCommands } from './commands/devices.commands';
import { registerReportCommands } from './commands/reports.commands';
import { registerTelemetryCommands } from './commands/telemetry.commands';
import { registerUserCommands } from './commands/users.commands';
import { registerWebhookCommands } from './commands/webhooks.commands';

export function buildProgram(): Command {
  const program = new Command('coldchain')
    .description('Operations command line of the cold chain telemetry platform')
    .showHelpAfterError()
    .exitOverride();
  registerDatabaseCommands(program);
  registerAccountCommands(program);
  registerCredentialCommands(program);
  registerDemoCommands(program);
  registerDeviceCommands(program);
  registerTelemetryCommands(program);
  registerUserCommands(program);
  registerWebhookCommands(program);
  registerAisCommands(program);
  registerReportCommands(program);
  registerAuditCommands(program);
  return program;
}

/** Runs one command line; returns the exit code (0 ok, 2 bad arguments or refused, 1 failure). */
export async function runCli(argv: string[]): Promise<number> {
  try {
    const program = buildProgram();
    // Every change a command makes is recorded as the operator's (CLI_OPERATOR, or the OS user),
    // with the command's name as the action and CHANGE_REASON as the reason.
    let action: string | undefined;
    program.hook('preAction', (_program, command) => {
      action = `cli ${command.name()}`;
    });
    await runWithAuditContext(
      () => ({ actorType: 'cli', actorId: operatorName(), action, reason: process.env.CHANGE_REASON }),
      () => program.parseAsync(argv, { from: 'user' }),
    );
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CliError || error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

/** Who runs the command line, for the audit trail. */
function operatorName(): string {
  const named = process.env.CLI_OPERATOR?.trim();
  if (named) return named.slice(0, 200);
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
