import { csvCell } from '@app/vocabulary';

/** CSV of telemetry points (RFC 4180, CRLF line ends), built line by line. */
export const POINTS_CSV_HEADER = ['device_id', 'serial_number', 'recorded_at', 'temperature', 'humidity', 'light', 'shock', 'battery', 'latitude', 'longitude'];

export class CsvBuilder {
  private readonly parts: string[] = [];

  constructor(header: string[]) {
    this.row(header);
  }

  row(values: Array<string | number | null>): void {
    this.parts.push(`${values.map(csvCell).join(',')}\r\n`);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.parts.join(''), 'utf8');
  }
}
