import { ApiProperty } from '@nestjs/swagger';
import type { ShipmentTemplate } from '@app/database';
import { NullableString } from '../../common/catalogue/field-decorators';
import { TransportLegDto, type LegMode } from './transport-leg.dto';

const NullableUuid = (): PropertyDecorator => ApiProperty({ type: String, nullable: true, format: 'uuid' });

export class ShipmentTemplateDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Izmir → Ankara vaccines (sea + road)' }) name: string;
  @NullableString() description: string | null;
  @ApiProperty({ format: 'uuid' }) origin_location_id: string;
  @ApiProperty({ format: 'uuid' }) destination_location_id: string;
  @NullableUuid() carrier_id: string | null;
  @NullableUuid() receiver_id: string | null;
  @NullableUuid() alert_preset_id: string | null;
  @ApiProperty({ type: [TransportLegDto] }) transport_legs: TransportLegDto[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;

  static from(template: ShipmentTemplate): ShipmentTemplateDto {
    return {
      id: template.id,
      name: template.name,
      description: template.description,
      origin_location_id: template.originLocationId,
      destination_location_id: template.destinationLocationId,
      carrier_id: template.carrierId,
      receiver_id: template.receiverId,
      alert_preset_id: template.alertPresetId,
      transport_legs: template.transportLegs.map((leg) => ({ ...leg, mode: leg.mode as LegMode })),
      created_at: template.createdAt.toISOString(),
      updated_at: template.updatedAt.toISOString(),
    };
  }
}
