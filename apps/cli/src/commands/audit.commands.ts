import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AUDIT_PDF_MAX_RECORDS, auditChainHead, exportAuditCsv, PLATFORM_AUDIT_ACCOUNT, readAuditRecords, verifyAuditChain } from '@app/database';
import { auditExportKeys, renderAuditPdf, signAuditExport, verifyAuditExport } from '@app/domain';
import { loadConfig } from '@app/config';
import { toAccountId, UUID_PATTERN, ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';
import { CliError, output, withContext } from '../cli-context';

export function registerAuditCommands(program: Command): void {
  program
    .command('audit:verify')
    .description("Walk an account's audit chain and report the first record that was altered, removed or reordered (exit 2 when one was)")
    .option('--account <id>', 'the account whose chain to verify')
    .option('--platform', 'verify the platform chain (devices, maintenance) instead')
    .option('--json', 'machine-readable output')
    .action(async (options: { account?: string; platform?: boolean; json?: boolean }) => {
      if (Boolean(options.account) === Boolean(options.platform)) throw new CliError('give either --account <id> or --platform');
      const accountId = options.platform ? PLATFORM_AUDIT_ACCOUNT : options.account!.toLowerCase();
      if (!UUID_PATTERN.test(accountId)) throw new CliError(`--account must be a UUID, not ${JSON.stringify(options.account)}`);
      await withContext(async ({ dataSource }) => {
        const report = await verifyAuditChain(dataSource, accountId);
        const broken = report.broken;
        output(
          Boolean(options.json),
          {
            account_id: report.accountId,
            records: report.records,
            intact: broken === null,
            broken,
            // Retention dropped the records up to this one: the chain is verified from it.
            anchor: report.anchor && { seq: report.anchor.seq, hash: report.anchor.hash, partition: report.anchor.partition, dropped_at: report.anchor.droppedAt.toISOString() },
          },
          `${broken
            ? `Audit chain of ${accountId}: BROKEN at record ${broken.seq}${broken.id ? ` (${broken.id})` : ''}: ${broken.detail}; ${report.records} record(s) before it hold.`
            : `Audit chain of ${accountId}: intact, ${report.records} record(s).`}${
            report.anchor ? ` Records 1–${report.anchor.seq} were dropped by retention (last with ${report.anchor.partition}); verified from the anchor kept for record ${report.anchor.seq}.` : ''
          }`,
        );
        if (broken) throw new CliError(`the audit chain of ${accountId} is broken at record ${broken.seq} (${broken.problem})`);
      });
    });

  program
    .command('audit:export')
    .description(
      "Export an account's audit records in a time range: CSV to stdout (newest first, with each record's seq and hashes), " +
        'or with --format pdf a document for an inspector (oldest first, with the chain head) written to --out, signed (Ed25519) in <out>.sig',
    )
    .requiredOption('--account <id>', 'the account whose records to export')
    .option('--from <instant>', 'first instant, inclusive (ISO 8601 with a time zone)')
    .option('--until <instant>', 'last instant, exclusive (ISO 8601 with a time zone)')
    .option('--format <format>', 'csv or pdf', 'csv')
    .option('--out <file>', 'pdf: the file to write (its signature goes to <file>.sig)')
    .action(async (options: { account: string; from?: string; until?: string; format: string; out?: string }) => {
      const accountId = options.account.toLowerCase();
      if (!UUID_PATTERN.test(accountId)) throw new CliError(`--account must be a UUID, not ${JSON.stringify(options.account)}`);
      const instant = (name: string, value?: string): Date | undefined => {
        if (value === undefined) return undefined;
        if (!ZONED_TIMESTAMP_PATTERN.test(value) || Number.isNaN(Date.parse(value))) throw new CliError(`--${name} must be an ISO 8601 instant with a time zone`);
        return new Date(value);
      };
      const from = instant('from', options.from);
      const until = instant('until', options.until);
      if (options.format !== 'csv' && options.format !== 'pdf') throw new CliError(`--format must be csv or pdf, not ${JSON.stringify(options.format)}`);
      if (options.format === 'pdf' && !options.out) throw new CliError('--format pdf needs --out <file> (the signature is written beside it, to <file>.sig)');
      await withContext(async ({ dataSource, config }) => {
        if (options.format === 'csv') {
          await exportAuditCsv(dataSource, toAccountId(accountId), { from, until }, (chunk) => process.stdout.write(chunk));
          return;
        }
        // The head first: every record the export holds is at or before it in the chain.
        const chainHead = await auditChainHead(dataSource, accountId);
        const records = await readAuditRecords(dataSource, toAccountId(accountId), { from, until });
        if (records === null) throw new CliError(`more than ${AUDIT_PDF_MAX_RECORDS} records in this range: export a shorter one (--from/--until), or use CSV`);
        const keys = auditExportKeys(config.secretsKey);
        const pdf = await renderAuditPdf({ accountId, from: from ?? null, until: until ?? null, generatedAt: new Date(), chainHead, keyFingerprint: keys.fingerprint, records });
        const file = options.out!;
        writeFileSync(file, pdf);
        writeFileSync(`${file}.sig`, signAuditExport(pdf, keys));
        process.stdout.write(
          `Wrote ${file} (${records.length} record(s), chain head ${chainHead ? `${chainHead.seq} ${chainHead.hash}` : 'none'}) and its Ed25519 signature ${file}.sig (key ${keys.fingerprint}).\n`,
        );
      });
    });

  program
    .command('audit:export-key')
    .description('Print the public key (PEM) that verifies signed audit exports, for inspectors and openssl')
    .action(() => {
      process.stdout.write(auditExportKeys(loadConfig().secretsKey).publicKeyPem);
    });

  program
    .command('audit:verify-export')
    .description("Check a PDF audit export against its detached signature (default <file>.sig) with this deployment's key (exit 2 when it does not verify)")
    .argument('<file>', 'the exported PDF')
    .option('--signature <file>', 'the signature file (default: <file>.sig)')
    .action((file: string, options: { signature?: string }) => {
      const read = (path: string): Buffer => {
        try {
          return readFileSync(path);
        } catch (error) {
          throw new CliError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
        }
      };
      const keys = auditExportKeys(loadConfig().secretsKey);
      const signaturePath = options.signature ?? `${file}.sig`;
      if (!verifyAuditExport(read(file), read(signaturePath), keys.publicKey)) {
        throw new CliError(`${file} does NOT verify with ${signaturePath} and key ${keys.fingerprint}: it was changed, or signed by another key`);
      }
      process.stdout.write(`${file}: signature valid (Ed25519, key ${keys.fingerprint}).\n`);
    });
}
