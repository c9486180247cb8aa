import { PDFParse } from 'pdf-parse';
import { renderReportPdf, type ReportDocumentModel } from './report-pdf';
import { SeriesStats, summarize } from './series-stats';
import { toThresholds } from '../devices';

const at = (minutes: number): Date => new Date(Date.UTC(2026, 10, 1, 8, minutes));

function model(): ReportDocumentModel {
  const thresholds = toThresholds({ temperature_min: 2, temperature_max: 8 });
  const stats = new SeriesStats(thresholds);
  stats.add(at(0), 4, null);
  stats.add(at(10), 5, null);
  const summary = summarize([stats], thresholds);
  return {
    title: 'Sevkiyat raporu',
    heading: 'İzmir → Ankara: Aşı soğuk zinciri',
    facts: [['Alıcı', 'Ayşe Yılmaz, Çağlar Öğüt'], ['Москва', 'Δ ≤ 8 °C']],
    period: { from: at(0), to: at(20) },
    devices: [{ serial: 'CCT-0000000001', label: 'Kasa ğ-1', from: at(0), to: at(20), summary }],
    overall: summary,
    limits: { temperature_min: 2, temperature_max: 8, humidity_min: null, humidity_max: null },
    chart: [{ name: 'Kasa ğ-1', points: [{ at: at(0).getTime(), value: 4 }, { at: at(10).getTime(), value: 5 }] }],
    alarms: [],
    generatedAt: at(30),
  };
}

describe('renderReportPdf', () => {
  it('prints Turkish, Greek and Cyrillic letters as they are (embedded DejaVu Sans)', async () => {
    const pdf = await renderReportPdf(model());
    const parser = new PDFParse({ data: pdf });
    try {
      const text = (await parser.getText()).text.replace(/\s+/g, ' ');
      for (const expected of ['Sevkiyat raporu', 'İzmir → Ankara: Aşı soğuk zinciri', 'Ayşe Yılmaz, Çağlar Öğüt', 'Москва', 'Δ ≤ 8 °C', 'Kasa ğ-1']) {
        expect({ expected, found: text.includes(expected) }).toEqual({ expected, found: true });
      }
    } finally {
      await parser.destroy();
    }
    // the fonts are subset: the document stays small
    expect(pdf.length).toBeLessThan(120_000);
  });
});
