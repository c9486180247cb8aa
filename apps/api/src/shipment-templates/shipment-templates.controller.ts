import { Body, Query, Req } from '@nestjs/common';
import { CurrentAccount } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { CreateRecord, DeleteRecord, GetRecord, ListRecords, ReplaceRecord, UpdateRecord, type CatalogueDocs } from '../common/catalogue/catalogue-operations';
import { Paginator } from '../common/paginator';
import { PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { CreateShipmentTemplateDto, UpdateShipmentTemplateDto } from './dto/create-shipment-template.dto';
import { ShipmentTemplateDto } from './dto/shipment-template.dto';
import { ShipmentTemplatesService } from '@app/domain';
import { type AccountId, BY_UUID } from '@app/vocabulary';

const ID = (n: number) => `0190c3a4-5e6f-7a8b-9c0d-00000000000${n}`;

const DOCS: CatalogueDocs = {
  noun: 'shipment template',
  plural: 'shipment templates',
  param: 'template_id',
  readScope: 'shipment-templates:read',
  writeScope: 'shipment-templates:write',
  dto: ShipmentTemplateDto,
  rules:
    'Every referenced id (`origin_location_id`, `destination_location_id`, `carrier_id`, `receiver_id`, `alert_preset_id` and the ids inside `transport_legs`) must name a record of the selected account; otherwise 400 `reference_not_found` naming the field, e.g. `transport_legs.1.carrier_id`. `vessel_mmsi` and `vessel_imo` apply to sea legs only.',
  examples: {
    seaAndRoad: {
      summary: 'Port to hospital: a sea leg, then a road leg',
      value: {
        name: 'Izmir → Ankara vaccines (sea + road)',
        origin_location_id: ID(1),
        destination_location_id: ID(3),
        carrier_id: ID(4),
        receiver_id: ID(6),
        alert_preset_id: ID(7),
        transport_legs: [
          { mode: 'sea', carrier_id: ID(4), vessel_mmsi: '271000123', vessel_imo: '9074729', from_location_id: ID(1), to_location_id: ID(2) },
          { mode: 'road', carrier_id: ID(5), from_location_id: ID(2), to_location_id: ID(3) },
        ],
      },
    },
  },
};

@PublicApiController('shipment-templates', 'Shipment templates')
export class ShipmentTemplatesController {
  constructor(
    private readonly templates: ShipmentTemplatesService<CreateShipmentTemplateDto>,
    private readonly paginator: Paginator,
  ) {}

  @ListRecords(DOCS)
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<ShipmentTemplateDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.templates.list(accountId, page), (t) => t.id, ShipmentTemplateDto.from);
  }

  @CreateRecord(DOCS, CreateShipmentTemplateDto)
  async create(@CurrentAccount() accountId: AccountId, @Body() body: CreateShipmentTemplateDto): Promise<ShipmentTemplateDto> {
    return ShipmentTemplateDto.from(await this.templates.create(accountId, body));
  }

  @GetRecord(DOCS)
  async get(@CurrentAccount() accountId: AccountId, @UuidParam('template_id') id: string): Promise<ShipmentTemplateDto> {
    return ShipmentTemplateDto.from(await this.templates.get(accountId, id));
  }

  @ReplaceRecord(DOCS, CreateShipmentTemplateDto)
  async replace(
    @CurrentAccount() accountId: AccountId,
    @UuidParam('template_id') id: string,
    @Body() body: CreateShipmentTemplateDto,
  ): Promise<ShipmentTemplateDto> {
    return ShipmentTemplateDto.from(await this.templates.replace(accountId, id, body));
  }

  @UpdateRecord(DOCS, UpdateShipmentTemplateDto)
  async update(
    @CurrentAccount() accountId: AccountId,
    @UuidParam('template_id') id: string,
    @Body() body: UpdateShipmentTemplateDto,
  ): Promise<ShipmentTemplateDto> {
    return ShipmentTemplateDto.from(await this.templates.update(accountId, id, body));
  }

  @DeleteRecord(DOCS)
  async remove(@CurrentAccount() accountId: AccountId, @UuidParam('template_id') id: string): Promise<void> {
    await this.templates.remove(accountId, id);
  }
}
