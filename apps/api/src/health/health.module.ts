import { pingDatabase } from '@app/database';
import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ReadReplicaService } from '../database/read-replica.service';
import { Metrics } from '../observability/metrics';
import { HealthController } from './health.controller';
import { OpsServer } from './ops-server';
import { ReadinessRegistry } from '@app/observability';

@Global()
@Module({
  controllers: [HealthController],
  providers: [ReadinessRegistry, { provide: Metrics, useFactory: () => new Metrics('api') }, OpsServer, ReadReplicaService],
  exports: [ReadinessRegistry, Metrics, OpsServer, ReadReplicaService],
})
export class HealthModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.readiness.register({ name: 'database', check: () => pingDatabase(this.dataSource) });
  }
}
