/** CSV of telemetry points (RFC 4180, CRLF line ends), built line by line. */
export const POINTS_CSV_HEADER = ['device_id', 'serial_number', 'recorded_at', 'temperature', 'humidity', 'light', 'shock', 'battery', 'latitude', 'longitude'];

const cell = (value: string | number | null): string => {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export class CsvBuilder {
  private readonly parts: string[] = [];

  constructor(header: string[]) {
    this.row(header);
  }

  row(values: Array<string | number | null>): void {
    this.parts.push(`${values.map(cell).join(',')}\r\n`);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.parts.join(''), 'utf8');
  }
}
