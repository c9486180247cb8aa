import { ApiProperty } from '@nestjs/swagger';
import type { MaintenanceRow } from '@app/domain';

export const MAINTENANCE_TYPES = ['maintenance', 'fault', 'repair', 'calibration'] as const;

/** A maintenance, fault, repair or calibration record; cost fields are never part of it. */
export class MaintenanceRecordDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) device_id: string;
  @ApiProperty({ enum: MAINTENANCE_TYPES }) type: (typeof MAINTENANCE_TYPES)[number];
  @ApiProperty({ format: 'date-time' }) performed_at: string;
  @ApiProperty() summary: string;
  @ApiProperty({ type: String, nullable: true }) details: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the next one is due (calibrations).' })
  next_due_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;

  static from(row: MaintenanceRow): MaintenanceRecordDto {
    return {
      id: row.id,
      device_id: row.device_id,
      type: row.kind as MaintenanceRecordDto['type'],
      performed_at: row.performed_at.toISOString(),
      summary: row.summary,
      details: row.details,
      next_due_at: row.next_due_at ? row.next_due_at.toISOString() : null,
      created_at: row.created_at.toISOString(),
    };
  }
}
