import PDFDocument from 'pdfkit';
import { FONT_BOLD, FONT_REGULAR, registerReportFonts } from './pdf-fonts';
import { pdfText } from './pdf-text';
import { formatCelsius, formatMinutes, formatNumber, formatTime } from './report-format';
import type { OutsideLimit } from '../devices';
import type { SeriesSummary } from './series-stats';

export interface ReportDeviceLine {
  serial: string;
  label: string | null;
  from: Date;
  to: Date | null;
  summary: SeriesSummary;
}

export interface ReportAlarmLine {
  at: Date;
  device: string;
  type: string;
  severity: string;
  message: string;
  resolvedAt: Date | null;
}

export interface ChartSeries {
  name: string;
  /** Time (ms) and °C, in time order. */
  points: Array<{ at: number; value: number }>;
}

/** Everything a report PDF shows; built by the shipment and device report generators. */
export interface ReportDocumentModel {
  title: string;
  heading: string;
  facts: Array<[string, string]>;
  period: { from: Date; to: Date };
  devices: ReportDeviceLine[];
  overall: SeriesSummary;
  /** Limits shown and drawn on the chart (null: not set). */
  limits: Record<OutsideLimit, number | null>;
  chart: ChartSeries[];
  alarms: ReportAlarmLine[];
  generatedAt: Date;
}

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;
const COLORS = ['#1d4ed8', '#047857', '#b45309', '#7c3aed', '#be123c'];

type Doc = PDFKit.PDFDocument;

function heading(doc: Doc, text: string): void {
  doc.moveDown(0.8).font(FONT_BOLD).fontSize(12).fillColor('#111827').text(pdfText(text), MARGIN, doc.y, { width: WIDTH });
  doc.moveDown(0.3).font(FONT_REGULAR).fontSize(9);
}

/** A simple table: fixed column widths, one line per row, header in bold. */
function table(doc: Doc, columns: Array<{ title: string; width: number }>, rows: string[][]): void {
  const line = (cells: string[], bold: boolean): void => {
    const y = doc.y;
    let x = MARGIN;
    doc.font(bold ? FONT_BOLD : FONT_REGULAR).fontSize(9);
    cells.forEach((cell, i) => {
      doc.text(pdfText(cell), x, y, { width: columns[i].width - 4, lineBreak: false, ellipsis: true });
      x += columns[i].width;
    });
    doc.y = y + 14;
  };
  line(columns.map((c) => c.title), true);
  for (const row of rows) line(row, false);
  doc.x = MARGIN;
}

function statsRow(name: string, summary: SeriesSummary): string[] {
  const t = summary.temperature;
  return [
    name,
    String(summary.points),
    t ? formatNumber(t.min) : '-',
    t ? formatNumber(t.max) : '-',
    t ? formatNumber(t.avg) : '-',
    t ? formatNumber(t.mkt) : '-',
    formatMinutes(summary.outsideMs.temperature_min),
    formatMinutes(summary.outsideMs.temperature_max),
    formatMinutes(summary.outsideMs.humidity_min),
    formatMinutes(summary.outsideMs.humidity_max),
  ];
}

function chart(doc: Doc, model: ReportDocumentModel): void {
  const top = doc.y + 10;
  const height = 240;
  const left = MARGIN + 36;
  const width = WIDTH - 36;
  const limits = [model.limits.temperature_min, model.limits.temperature_max].filter((v): v is number => v !== null);
  let low = Math.min(0, ...limits);
  let high = Math.max(10, ...limits);
  for (const series of model.chart) {
    for (const p of series.points) {
      low = Math.min(low, p.value);
      high = Math.max(high, p.value);
    }
  }
  low = Math.floor(low - 1);
  high = Math.ceil(high + 1);
  const from = model.period.from.getTime();
  const span = Math.max(1, model.period.to.getTime() - from);
  const x = (at: number): number => left + ((at - from) / span) * width;
  const y = (value: number): number => top + height - ((value - low) / (high - low)) * height;

  doc.save().lineWidth(0.5).strokeColor('#9ca3af').rect(left, top, width, height).stroke();
  doc.font(FONT_REGULAR).fontSize(7).fillColor('#374151');
  for (let i = 0; i <= 4; i++) {
    const value = low + ((high - low) * i) / 4;
    doc.text(`${value.toFixed(1)} °C`, MARGIN, y(value) - 3, { width: 34, align: 'right', lineBreak: false });
  }
  doc.text(formatTime(model.period.from), left, top + height + 4, { lineBreak: false });
  doc.text(formatTime(model.period.to), left + width - 90, top + height + 4, { width: 90, align: 'right', lineBreak: false });
  for (const limit of limits) {
    doc.moveTo(left, y(limit)).lineTo(left + width, y(limit)).dash(4, { space: 3 }).strokeColor('#dc2626').lineWidth(0.8).stroke().undash();
  }
  model.chart.forEach((series, index) => {
    if (series.points.length === 0) return;
    doc.strokeColor(COLORS[index % COLORS.length]).lineWidth(1);
    series.points.forEach((p, i) => (i === 0 ? doc.moveTo(x(p.at), y(p.value)) : doc.lineTo(x(p.at), y(p.value))));
    doc.stroke();
  });
  doc.restore();
  let legendX = left;
  const legendY = top + height + 16;
  model.chart.forEach((series, index) => {
    doc.save().rect(legendX, legendY + 1, 8, 6).fill(COLORS[index % COLORS.length]).restore();
    doc.font(FONT_REGULAR).fontSize(8).fillColor('#111827').text(pdfText(series.name), legendX + 11, legendY, { lineBreak: false });
    legendX += 100;
  });
  doc.x = MARGIN;
  doc.y = legendY + 18;
}

/**
 * Renders the report: page 1 summary (facts, devices, statistics with the mean kinetic
 * temperature and the time beyond each limit), page 2 the temperature chart and the alarm list
 * (continuing on further pages when it is long). Every page carries "Page n of m".
 */
export function renderReportPdf(model: ReportDocumentModel): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: pdfText(`${model.title}: ${model.heading}`), Creator: 'Cold Chain Telemetry', CreationDate: model.generatedAt },
  });
  registerReportFonts(doc);
  doc.font(FONT_REGULAR);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font(FONT_BOLD).fontSize(18).fillColor('#111827').text(pdfText(model.title));
  doc.font(FONT_REGULAR).fontSize(12).text(pdfText(model.heading));
  doc.fontSize(9).fillColor('#4b5563').text(`Period: ${formatTime(model.period.from)} - ${formatTime(model.period.to)}`);
  doc.fillColor('#111827');
  heading(doc, 'Details');
  table(
    doc,
    [{ title: 'Field', width: 140 }, { title: 'Value', width: WIDTH - 140 }],
    model.facts,
  );
  heading(doc, 'Devices');
  table(
    doc,
    [{ title: 'Serial number', width: 110 }, { title: 'Label', width: 125 }, { title: 'From', width: 130 }, { title: 'To', width: 130 }],
    model.devices.map((d) => [d.serial, d.label ?? '-', formatTime(d.from), d.to ? formatTime(d.to) : '-']),
  );
  heading(doc, 'Temperature (°C) and time beyond the limits');
  const limitText = (name: string, min: number | null, max: number | null, unit: string): string =>
    `${name}: ${min === null ? 'no minimum' : `min ${formatNumber(min)} ${unit}`}, ${max === null ? 'no maximum' : `max ${formatNumber(max)} ${unit}`}`;
  doc.text(
    pdfText(`Limits - ${limitText('temperature', model.limits.temperature_min, model.limits.temperature_max, '°C')}; ${limitText('humidity', model.limits.humidity_min, model.limits.humidity_max, '%RH')}.`),
    { width: WIDTH },
  );
  doc.moveDown(0.4);
  table(
    doc,
    [
      { title: 'Device', width: 87 },
      { title: 'Points', width: 40 },
      { title: 'Min', width: 40 },
      { title: 'Max', width: 40 },
      { title: 'Avg', width: 40 },
      { title: 'MKT', width: 40 },
      { title: 'T < min', width: 52 },
      { title: 'T > max', width: 52 },
      { title: 'RH < min', width: 52 },
      { title: 'RH > max', width: 52 },
    ],
    [statsRow('All devices', model.overall), ...model.devices.map((d) => statsRow(d.serial, d.summary))],
  );
  doc.moveDown(0.5).fontSize(8).fillColor('#4b5563');
  doc.text(
    pdfText(
      `Mean kinetic temperature (MKT): activation energy 83.144 kJ/mol (Delta H / R = 10000 K), readings weighted equally. ` +
        `Overall MKT ${model.overall.temperature ? formatCelsius(model.overall.temperature.mkt) : '-'}. ` +
        'Time beyond a limit runs from a reading beyond it to the next reading, summed over the devices.',
    ),
    MARGIN,
    doc.y,
    { width: WIDTH },
  );

  doc.addPage();
  doc.fillColor('#111827');
  heading(doc, 'Temperature chart');
  chart(doc, model);
  heading(doc, `Alarms (${model.alarms.length})`);
  if (model.alarms.length === 0) doc.text('No alarms were raised in this period.');
  for (const alarm of model.alarms) {
    const resolved = alarm.resolvedAt ? `resolved ${formatTime(alarm.resolvedAt)}` : 'unresolved';
    doc.text(pdfText(`${formatTime(alarm.at)}  ${alarm.device}  ${alarm.type}/${alarm.severity}  ${alarm.message} (${resolved})`), MARGIN, doc.y, { width: WIDTH });
  }

  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    doc.font(FONT_REGULAR).fontSize(8).fillColor('#6b7280');
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.text(`Generated ${formatTime(model.generatedAt)} - Page ${i + 1} of ${range.count}`, MARGIN, doc.page.height - 35, { width: WIDTH, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return finished;
}
