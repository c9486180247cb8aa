import { Column, Entity } from 'typeorm';
import { TenantEntity } from './tenant-entity';

/** pg returns double precision as a JS number already; no transformer needed. */
@Entity('alert_presets')
export class AlertPreset extends TenantEntity {
  @Column() name: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ name: 'temperature_min', type: 'double precision', nullable: true }) temperatureMin: number | null;
  @Column({ name: 'temperature_max', type: 'double precision', nullable: true }) temperatureMax: number | null;
  @Column({ name: 'humidity_min', type: 'double precision', nullable: true }) humidityMin: number | null;
  @Column({ name: 'humidity_max', type: 'double precision', nullable: true }) humidityMax: number | null;
  @Column({ name: 'light_max', type: 'double precision', nullable: true }) lightMax: number | null;
  @Column({ name: 'shock_max', type: 'double precision', nullable: true }) shockMax: number | null;
  @Column({ name: 'battery_min', type: 'double precision', nullable: true }) batteryMin: number | null;
  @Column({ name: 'delay_minutes', type: 'int' }) delayMinutes: number;
}
