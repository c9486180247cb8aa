import { Body, Query, Req } from '@nestjs/common';
import { CurrentAccount } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { CreateRecord, DeleteRecord, GetRecord, ListRecords, ReplaceRecord, UpdateRecord, type CatalogueDocs } from '../common/catalogue/catalogue-operations';
import { Paginator } from '../common/paginator';
import { PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { AlertPresetDto } from './dto/alert-preset.dto';
import { CreateAlertPresetDto, UpdateAlertPresetDto } from './dto/create-alert-preset.dto';
import { type AccountId, BY_UUID } from '@app/vocabulary';
import { AlertPresetsService } from '@app/domain';

const DOCS: CatalogueDocs = {
  noun: 'alert preset',
  plural: 'alert presets',
  param: 'preset_id',
  readScope: 'alert-presets:read',
  writeScope: 'alert-presets:write',
  dto: AlertPresetDto,
  rules:
    'Every threshold is optional (null: not monitored). `temperature_min` must be lower than `temperature_max` and `humidity_min` lower than `humidity_max`, also after a PATCH of one of them (400 `min_not_below_max`). `delay_minutes` (0–1440) is how long a condition must last before it raises an alarm.',
  examples: {
    vaccines: {
      summary: 'Vaccines, 2–8 °C, alarm after 15 minutes',
      value: { name: 'Vaccines 2–8 °C', temperature_min: 2, temperature_max: 8, light_max: 50, shock_max: 8, battery_min: 15, delay_minutes: 15 },
    },
    frozen: { summary: 'Frozen goods, upper bound only', value: { name: 'Frozen −18 °C', temperature_max: -18 } },
  },
};

@PublicApiController('alert-presets', 'Alert presets')
export class AlertPresetsController {
  constructor(
    private readonly presets: AlertPresetsService<CreateAlertPresetDto>,
    private readonly paginator: Paginator,
  ) {}

  @ListRecords(DOCS)
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<AlertPresetDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.presets.list(accountId, page), (p) => p.id, AlertPresetDto.from);
  }

  @CreateRecord(DOCS, CreateAlertPresetDto)
  async create(@CurrentAccount() accountId: AccountId, @Body() body: CreateAlertPresetDto): Promise<AlertPresetDto> {
    return AlertPresetDto.from(await this.presets.create(accountId, body));
  }

  @GetRecord(DOCS)
  async get(@CurrentAccount() accountId: AccountId, @UuidParam('preset_id') id: string): Promise<AlertPresetDto> {
    return AlertPresetDto.from(await this.presets.get(accountId, id));
  }

  @ReplaceRecord(DOCS, CreateAlertPresetDto)
  async replace(@CurrentAccount() accountId: AccountId, @UuidParam('preset_id') id: string, @Body() body: CreateAlertPresetDto): Promise<AlertPresetDto> {
    return AlertPresetDto.from(await this.presets.replace(accountId, id, body));
  }

  @UpdateRecord(DOCS, UpdateAlertPresetDto)
  async update(@CurrentAccount() accountId: AccountId, @UuidParam('preset_id') id: string, @Body() body: UpdateAlertPresetDto): Promise<AlertPresetDto> {
    return AlertPresetDto.from(await this.presets.update(accountId, id, body));
  }

  @DeleteRecord(DOCS)
  async remove(@CurrentAccount() accountId: AccountId, @UuidParam('preset_id') id: string): Promise<void> {
    await this.presets.remove(accountId, id);
  }
}
