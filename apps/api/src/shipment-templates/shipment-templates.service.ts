import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ShipmentTemplate } from '@app/database';
import { CatalogueService } from '../common/catalogue/catalogue.service';
import type { CreateShipmentTemplateDto } from './dto/create-shipment-template.dto';
import { SHIPMENT_TEMPLATES } from './shipment-templates.family';

@Injectable()
export class ShipmentTemplatesService extends CatalogueService<ShipmentTemplate, CreateShipmentTemplateDto> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, SHIPMENT_TEMPLATES);
  }
}
