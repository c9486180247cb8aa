import { ApiProperty } from '@nestjs/swagger';

export const CONNECTIVITY = ['online', 'offline'] as const;

export class BatteryStatusDto {
  @ApiProperty({ minimum: 0, maximum: 100, description: 'Battery level, percent.' }) percent: number;
  @ApiProperty({ format: 'date-time' }) recorded_at: string;
}

export class LocationStatusDto {
  @ApiProperty({ minimum: -90, maximum: 90 }) latitude: number;
  @ApiProperty({ minimum: -180, maximum: 180 }) longitude: number;
  @ApiProperty({ format: 'date-time' }) recorded_at: string;
}

export class DeviceStatusDto {
  @ApiProperty({ format: 'uuid' }) device_id: string;
  @ApiProperty({
    enum: CONNECTIVITY,
    description: '`online` when the device reported within three transmission intervals; otherwise (or never) `offline`.',
  })
  connectivity: (typeof CONNECTIVITY)[number];
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Time of the newest measurement received in this ownership.' })
  last_seen_at: string | null;
  @ApiProperty({ type: BatteryStatusDto, nullable: true }) battery: BatteryStatusDto | null;
  @ApiProperty({ type: LocationStatusDto, nullable: true, description: 'Last known position and when it was measured.' })
  location: LocationStatusDto | null;
}
