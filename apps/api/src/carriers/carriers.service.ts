import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Carrier } from '@app/database';
import { CatalogueService } from '../common/catalogue/catalogue.service';
import { CARRIERS } from './carriers.family';
import type { CreateCarrierDto } from './dto/create-carrier.dto';

@Injectable()
export class CarriersService extends CatalogueService<Carrier, CreateCarrierDto> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, CARRIERS);
  }
}
