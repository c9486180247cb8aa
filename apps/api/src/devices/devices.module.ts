import { Module } from '@nestjs/common';
import { DevicesController } from './devices.controller';
import { DevicesRepository } from './devices.repository';
import { DevicesService } from './devices.service';

@Module({ controllers: [DevicesController], providers: [DevicesRepository, DevicesService], exports: [DevicesService] })
export class DevicesModule {}
