import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Receiver } from '@app/database';
import { CatalogueService } from '../common/catalogue/catalogue.service';
import type { CreateReceiverDto } from './dto/create-receiver.dto';
import { RECEIVERS } from './receivers.family';

@Injectable()
export class ReceiversService extends CatalogueService<Receiver, CreateReceiverDto> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, RECEIVERS);
  }
}
