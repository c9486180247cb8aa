import { ApiProperty } from '@nestjs/swagger';
import { SHIPMENT_EVENT_KINDS, SHIPMENT_STATUSES, type ShipmentEventKind, type ShipmentStatus } from '@app/domain';
import { ShipmentLegDto } from './shipment-leg.dto';

const NullableTime = (description?: string): PropertyDecorator => ApiProperty({ type: String, format: 'date-time', nullable: true, description });

export class NamedRefDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when the record was deleted after the shipment completed.' }) name: string | null;
}

/** A shipment as lists show it. */
export class ShipmentListItemDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 147 }) id: number;
  @ApiProperty({ example: 'PO-2025-0147' }) reference: string;
  @ApiProperty({ example: 'Vaccines Izmir → Ankara' }) name: string;
  @ApiProperty({ enum: SHIPMENT_STATUSES }) status: ShipmentStatus;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Template the shipment was created from.' }) template_id: string | null;
  @ApiProperty({ type: NamedRefDto }) origin: NamedRefDto;
  @ApiProperty({ type: NamedRefDto }) destination: NamedRefDto;
  @ApiProperty({ type: NamedRefDto, nullable: true }) receiver: NamedRefDto | null;
  @ApiProperty({ type: NamedRefDto, nullable: true }) carrier: NamedRefDto | null;
  @ApiProperty({ type: NamedRefDto, nullable: true }) alert_preset: NamedRefDto | null;
  @NullableTime() planned_departure_at: string | null;
  @NullableTime() planned_arrival_at: string | null;
  @ApiProperty({ type: [String], format: 'uuid', description: 'Devices attached now (active) or at completion (completed).' }) device_ids: string[];
  @ApiProperty({ format: 'date-time', description: 'Start of the tracking window: when the shipment was created.' }) started_at: string;
  @NullableTime('When a device first entered the destination geofence with `mark_arrival` automation.') arrived_at: string | null;
  @NullableTime('End of the tracking window (frozen at completion); null while active.') completed_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class ShipmentDeviceDto {
  @ApiProperty({ format: 'uuid' }) device_id: string;
  @ApiProperty({ example: 'CCT-4F2A9C01D3' }) serial_number: string;
  @ApiProperty({ type: String, nullable: true }) label: string | null;
  @ApiProperty({ format: 'date-time' }) attached_at: string;
  @NullableTime('null while attached; the completion moment for devices attached at completion.') detached_at: string | null;
}

export class VesselPositionDto {
  @ApiProperty({ type: String, nullable: true, pattern: '^[0-9]{9}$' }) mmsi: string | null;
  @ApiProperty({ type: String, nullable: true, pattern: '^[0-9]{7}$' }) imo: string | null;
  @ApiProperty({ minimum: -90, maximum: 90 }) latitude: number;
  @ApiProperty({ minimum: -180, maximum: 180 }) longitude: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Speed over ground, knots.' }) speed_knots: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Course over ground, degrees.' }) course_deg: number | null;
  @ApiProperty({ format: 'date-time', description: 'When the vessel reported this position.' }) recorded_at: string;
}

export class TemperatureSummaryDto {
  @ApiProperty({ description: '°C' }) min: number;
  @ApiProperty({ description: '°C' }) max: number;
  @ApiProperty({ description: '°C, rounded to 3 decimals.' }) avg: number;
}

export class ShipmentSummaryDto {
  @ApiProperty({ type: 'integer', description: 'Points in the tracking window (every attached device, while attached).' }) point_count: number;
  @ApiProperty({ type: TemperatureSummaryDto, nullable: true, description: 'null without temperature readings.' }) temperature: TemperatureSummaryDto | null;
  @ApiProperty({ type: 'integer', description: 'Unresolved alarms raised while a device travelled in this shipment.' }) open_alarms: number;
}

export class ShipmentEventDto {
  @ApiProperty({ enum: SHIPMENT_EVENT_KINDS }) kind: ShipmentEventKind;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) location_id: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) device_id: string | null;
  @ApiProperty({ format: 'date-time' }) recorded_at: string;
}

/**
 * The shipment record: this representation is also the `data` of the `shipment.created` and
 * `shipment.completed` webhook events.
 */
export class ShipmentDto extends ShipmentListItemDto {
  @ApiProperty({ type: [ShipmentLegDto] }) transport_legs: ShipmentLegDto[];
  @ApiProperty({ type: ShipmentLegDto, nullable: true, description: 'The first leg not yet completed; null when there is none or the shipment is completed.' })
  active_transport_leg: ShipmentLegDto | null;
  @ApiProperty({ type: [ShipmentDeviceDto], description: 'Every attachment, in order, with its attach and detach times.' }) devices: ShipmentDeviceDto[];
  @ApiProperty({ type: VesselPositionDto, nullable: true, description: 'Latest AIS position of the active sea leg’s vessel, found by the leg’s `vessel_mmsi` (by `vessel_imo` when the leg names no MMSI); null when the active leg is not at sea or nothing was reported.' })
  ais_position: VesselPositionDto | null;
  @ApiProperty({ type: ShipmentSummaryDto }) summary: ShipmentSummaryDto;
  @ApiProperty({ type: [ShipmentEventDto], description: 'The latest 50 geofence events (location automation `record_event`, arrivals), oldest first.' })
  events: ShipmentEventDto[];
}
