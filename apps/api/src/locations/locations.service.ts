import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Location } from '@app/database';
import { CatalogueService } from '../common/catalogue/catalogue.service';
import type { CreateLocationDto } from './dto/create-location.dto';
import { LOCATIONS } from './locations.family';

@Injectable()
export class LocationsService extends CatalogueService<Location, CreateLocationDto> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, LOCATIONS);
  }
}
