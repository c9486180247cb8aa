import { Body, Query, Req } from '@nestjs/common';
import { CurrentAccount } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { CreateRecord, DeleteRecord, GetRecord, ListRecords, ReplaceRecord, UpdateRecord, type CatalogueDocs } from '../common/catalogue/catalogue-operations';
import { Paginator } from '../common/paginator';
import { PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { CarrierDto } from './dto/carrier.dto';
import { CreateCarrierDto, UpdateCarrierDto } from './dto/create-carrier.dto';
import { type AccountId, BY_UUID } from '@app/vocabulary';
import { CarriersService } from '@app/domain';

const DOCS: CatalogueDocs = {
  noun: 'carrier',
  plural: 'carriers',
  param: 'carrier_id',
  readScope: 'carriers:read',
  writeScope: 'carriers:write',
  dto: CarrierDto,
  rules:
    'Identifiers apply by mode: `scac` to road, rail, sea and multimodal carriers; `iata_code` to air and multimodal; `mmsi` and `imo` to sea and multimodal. One set on a carrier of another mode is a 400 `not_applicable` (also when a PATCH changes `mode`).',
  examples: {
    sea: {
      summary: 'An ocean reefer carrier',
      value: { name: 'Aegean Reefer Lines', mode: 'sea', contact_email: 'ops@aegean-reefer.example', scac: 'AGRL', mmsi: '271000123', imo: '9074729' },
    },
    air: { summary: 'An air cargo carrier', value: { name: 'Anatolian Air Cargo', mode: 'air', iata_code: 'TK', contact_phone: '+902124440849' } },
  },
};

@PublicApiController('carriers', 'Carriers')
export class CarriersController {
  constructor(
    private readonly carriers: CarriersService<CreateCarrierDto>,
    private readonly paginator: Paginator,
  ) {}

  @ListRecords(DOCS)
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<CarrierDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.carriers.list(accountId, page), (c) => c.id, CarrierDto.from);
  }

  @CreateRecord(DOCS, CreateCarrierDto)
  async create(@CurrentAccount() accountId: AccountId, @Body() body: CreateCarrierDto): Promise<CarrierDto> {
    return CarrierDto.from(await this.carriers.create(accountId, body));
  }

  @GetRecord(DOCS)
  async get(@CurrentAccount() accountId: AccountId, @UuidParam('carrier_id') id: string): Promise<CarrierDto> {
    return CarrierDto.from(await this.carriers.get(accountId, id));
  }

  @ReplaceRecord(DOCS, CreateCarrierDto)
  async replace(@CurrentAccount() accountId: AccountId, @UuidParam('carrier_id') id: string, @Body() body: CreateCarrierDto): Promise<CarrierDto> {
    return CarrierDto.from(await this.carriers.replace(accountId, id, body));
  }

  @UpdateRecord(DOCS, UpdateCarrierDto)
  async update(@CurrentAccount() accountId: AccountId, @UuidParam('carrier_id') id: string, @Body() body: UpdateCarrierDto): Promise<CarrierDto> {
    return CarrierDto.from(await this.carriers.update(accountId, id, body));
  }

  @DeleteRecord(DOCS)
  async remove(@CurrentAccount() accountId: AccountId, @UuidParam('carrier_id') id: string): Promise<void> {
    await this.carriers.remove(accountId, id);
  }
}
