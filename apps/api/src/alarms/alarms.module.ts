import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AlarmsService } from '@app/domain';
import { DevicesModule } from '../devices/devices.module';
import { AlarmsController } from './alarms.controller';
import { DeviceAlarmsController } from './device-alarms.controller';

@Module({
  imports: [DevicesModule],
  controllers: [AlarmsController, DeviceAlarmsController],
  providers: [{ provide: AlarmsService, useFactory: (dataSource: DataSource) => new AlarmsService(dataSource), inject: [getDataSourceToken()] }],
})
export class AlarmsModule {}
