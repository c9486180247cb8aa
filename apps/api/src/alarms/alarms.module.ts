import { Module } from '@nestjs/common';
import { DevicesModule } from '../devices/devices.module';
import { AlarmsController } from './alarms.controller';
import { AlarmsService } from './alarms.service';
import { DeviceAlarmsController } from './device-alarms.controller';

@Module({ imports: [DevicesModule], controllers: [AlarmsController, DeviceAlarmsController], providers: [AlarmsService] })
export class AlarmsModule {}
