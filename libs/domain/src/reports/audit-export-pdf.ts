import PDFDocument from 'pdfkit';
import type { AuditEventRow } from '@app/database';
import { FONT_BOLD, FONT_REGULAR, registerReportFonts } from './pdf-fonts';
import { pdfText } from './pdf-text';

/** What an audit export shows besides its records. */
export interface AuditPdfModel {
  accountId: string;
  /** The range asked for (null: open). */
  from: Date | null;
  until: Date | null;
  generatedAt: Date;
  /** The account's chain head when the export was made: the newest record of the whole trail. */
  chainHead: { seq: number; hash: string } | null;
  /** Fingerprint of the signing key (audit-export-signature.ts). */
  keyFingerprint: string;
  /** Oldest first. */
  records: AuditEventRow[];
}

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;
const utc = (value: Date): string => `${value.toISOString().replace('T', ' ').replace('Z', '')} UTC`;
const ACTORS: Record<AuditEventRow['actor_type'], string> = { credential: 'API credential', panel_user: 'Panel user', cli: 'Platform operator', system: 'The service' };

function changeLines(row: AuditEventRow): string[] {
  return Object.keys(row.changes)
    .sort()
    .map((field) => {
      const change = row.changes[field];
      return 'changed' in change ? `${field}: changed (secret, value not recorded)` : `${field}: ${JSON.stringify(change.old)} -> ${JSON.stringify(change.new)}`;
    });
}

/**
 * The chain head in one line, also written into the document's Keywords so that a reader (or a
 * script) finds it without parsing the pages.
 */
export const chainHeadText = (head: AuditPdfModel['chainHead']): string => (head ? `chain head seq ${head.seq} hash ${head.hash}` : 'chain head none');

/**
 * An audit export for an inspector: what it covers (account, range in UTC, when it was made, the
 * chain head and the signing key's fingerprint), how to check it, then every record oldest first
 * with its seq and hashes, who, from where, why, and each field before and after. Signed as a
 * whole by a detached Ed25519 signature (signAuditExport), which covers the chain head printed here.
 */
export function renderAuditPdf(model: AuditPdfModel): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: {
      Title: `Audit trail of account ${model.accountId}`,
      Subject: `Audit records ${model.from ? utc(model.from) : 'from the start'} to ${model.until ? utc(model.until) : 'now'}`,
      Keywords: `${chainHeadText(model.chainHead)}; key ${model.keyFingerprint}`,
      Creator: 'Cold Chain Telemetry',
      CreationDate: model.generatedAt,
    },
  });
  registerReportFonts(doc);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font(FONT_BOLD).fontSize(18).fillColor('#111827').text('Audit trail export');
  doc.font(FONT_REGULAR).fontSize(9).moveDown(0.5);
  const facts: Array<[string, string]> = [
    ['Account', model.accountId],
    ['Records from', model.from ? utc(model.from) : 'the first record kept'],
    ['Records until (not included)', model.until ? utc(model.until) : 'the time of the export'],
    ['Records in this export', String(model.records.length)],
    ['Exported at', utc(model.generatedAt)],
    ['Chain head at export', model.chainHead ? `record ${model.chainHead.seq}, hash ${model.chainHead.hash}` : 'no records'],
    ['Signing key (SHA-256 of the Ed25519 public key)', model.keyFingerprint],
  ];
  for (const [name, value] of facts) {
    const y = doc.y;
    doc.font(FONT_BOLD).text(pdfText(name), MARGIN, y, { width: 170 });
    const labelBottom = doc.y;
    doc.font(FONT_REGULAR).text(pdfText(value), MARGIN + 175, y, { width: WIDTH - 175 });
    doc.y = Math.max(labelBottom, doc.y) + 2;
  }
  doc.moveDown(0.5).fillColor('#4b5563').fontSize(8);
  doc.text(
    pdfText(
      'How to check this document: it comes with a detached Ed25519 signature (the file name with .sig added) over its exact bytes. ' +
        'Verify it with the public key of the service (npm run cli -- audit:export-key) and openssl pkeyutl -verify -pubin -inkey <key.pem> -rawin -in <file.pdf> -sigfile <file.pdf.sig>, ' +
        'or with npm run cli -- audit:verify-export <file.pdf>. Each record carries its position in the account\u2019s chain (seq), the hash of the record before it and its own hash ' +
        '(SHA-256 over the previous hash and the record), so the records can also be compared with the live trail (audit:verify). All times are UTC.',
    ),
    MARGIN,
    doc.y,
    { width: WIDTH },
  );
  doc.fillColor('#111827').moveDown(0.8);

  if (model.records.length === 0) doc.fontSize(10).text('No audit records in this range.', MARGIN, doc.y, { width: WIDTH });
  for (const row of model.records) {
    if (doc.y > 700) doc.addPage();
    doc.font(FONT_BOLD).fontSize(9).text(pdfText(`#${row.seq}  ${utc(row.occurred_at)}  ${row.operation} ${row.resource_type} ${row.resource_id}`), MARGIN, doc.y, { width: WIDTH });
    doc.font(FONT_REGULAR).fontSize(8);
    const lines = [
      `Actor: ${ACTORS[row.actor_type]}${row.actor_id ? ` ${row.actor_id}` : ''}; address ${row.client_address ?? '-'}; request ${row.request_id ?? '-'}`,
      `Action: ${row.action}`,
      `Reason: ${row.reason ?? '-'}`,
      ...changeLines(row).map((line) => `  ${line}`),
      `prev_hash ${row.prev_hash || '(none: first record)'}`,
      `hash ${row.hash}`,
    ];
    for (const line of lines) doc.text(pdfText(line), MARGIN + 10, doc.y, { width: WIDTH - 10 });
    doc.moveDown(0.5);
  }

  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    doc.font(FONT_REGULAR).fontSize(8).fillColor('#4b5563');
    // The footer sits in the bottom margin: without the margin PDFKit would start a new page for it.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.text(`Audit trail of ${model.accountId} - page ${i + 1} of ${range.count}`, MARGIN, doc.page.height - 35, { width: WIDTH, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return finished;
}
