import { Body, Query, Req } from '@nestjs/common';
import { CurrentAccount } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { CreateRecord, DeleteRecord, GetRecord, ListRecords, ReplaceRecord, UpdateRecord, type CatalogueDocs } from '../common/catalogue/catalogue-operations';
import { Paginator } from '../common/paginator';
import { PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { CreateReceiverDto, UpdateReceiverDto } from './dto/create-receiver.dto';
import { ReceiverDto } from './dto/receiver.dto';
import { type AccountId, BY_UUID } from '@app/vocabulary';
import { ReceiversService } from '@app/domain';

const DOCS: CatalogueDocs = {
  noun: 'receiver',
  plural: 'receivers',
  param: 'receiver_id',
  readScope: 'receivers:read',
  writeScope: 'receivers:write',
  dto: ReceiverDto,
  rules: 'Delivery parties and notification e-mails are part of the receiver: each write replaces the whole list (at most 20 each).',
  examples: {
    hospital: {
      summary: 'A hospital pharmacy with two delivery parties',
      value: {
        name: 'Ankara City Hospital Pharmacy',
        city: 'Ankara',
        country: 'TR',
        contact_email: 'receiving@hospital.example',
        notification_emails: ['alerts@hospital.example'],
        delivery_parties: [
          { name: 'Dr. Ayşe Kaya', role: 'consignee', email: 'pharmacy@hospital.example', phone: '+903125520000' },
          { name: 'Gümrük Müşavirliği Ltd', role: 'customs_broker', email: 'broker@customs.example' },
        ],
      },
    },
  },
};

@PublicApiController('receivers', 'Receivers')
export class ReceiversController {
  constructor(
    private readonly receivers: ReceiversService<CreateReceiverDto>,
    private readonly paginator: Paginator,
  ) {}

  @ListRecords(DOCS)
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<ReceiverDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.receivers.list(accountId, page), (r) => r.id, ReceiverDto.from);
  }

  @CreateRecord(DOCS, CreateReceiverDto)
  async create(@CurrentAccount() accountId: AccountId, @Body() body: CreateReceiverDto): Promise<ReceiverDto> {
    return ReceiverDto.from(await this.receivers.create(accountId, body));
  }

  @GetRecord(DOCS)
  async get(@CurrentAccount() accountId: AccountId, @UuidParam('receiver_id') id: string): Promise<ReceiverDto> {
    return ReceiverDto.from(await this.receivers.get(accountId, id));
  }

  @ReplaceRecord(DOCS, CreateReceiverDto)
  async replace(@CurrentAccount() accountId: AccountId, @UuidParam('receiver_id') id: string, @Body() body: CreateReceiverDto): Promise<ReceiverDto> {
    return ReceiverDto.from(await this.receivers.replace(accountId, id, body));
  }

  @UpdateRecord(DOCS, UpdateReceiverDto)
  async update(@CurrentAccount() accountId: AccountId, @UuidParam('receiver_id') id: string, @Body() body: UpdateReceiverDto): Promise<ReceiverDto> {
    return ReceiverDto.from(await this.receivers.update(accountId, id, body));
  }

  @DeleteRecord(DOCS)
  async remove(@CurrentAccount() accountId: AccountId, @UuidParam('receiver_id') id: string): Promise<void> {
    await this.receivers.remove(accountId, id);
  }
}
