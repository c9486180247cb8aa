import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '@app/config';
import { dataSourceOptions } from '@app/database';
import { AccountsModule } from './accounts/accounts.module';
import { AisModule } from './ais/ais.module';
import { AlertPresetsModule } from './alert-presets/alert-presets.module';
import { AlarmsModule } from './alarms/alarms.module';
import { AuditEventsModule } from './audit-events/audit-events.module';
import { ApiIndexController } from './api-index/api-index.controller';
import { AuthModule } from './auth/auth.module';
import { CarriersModule } from './carriers/carriers.module';
import { CommonModule } from './common/common.module';
import { HousekeepingService } from './housekeeping/housekeeping.service';
import { ProblemDetailsFilter } from './common/problem-details.filter';
import { ConfigModule } from './config/config.module';
import { DevicesModule } from './devices/devices.module';
import { HealthModule } from './health/health.module';
import { InvitationsModule } from './users/invitations/invitations.module';
import { LocationsModule } from './locations/locations.module';
import { LOGGER, type AppLogger } from '@app/observability';
import { OpenApiDocumentHolder } from './openapi/openapi-document';
import { OutboxModule } from './outbox/outbox.module';
import { SchemaController } from './openapi/schema.controller';
import { PagesModule } from './pages/pages.module';
import { PanelModule } from './panel/panel.module';
import { ReceiversModule } from './receivers/receivers.module';
import { ReportsModule } from './reports/reports.module';
import { ShipmentTemplatesModule } from './shipment-templates/shipment-templates.module';
import { ShipmentsModule } from './shipments/shipments.module';
import { TelemetryModule } from './telemetry/telemetry.module';
import { UsersModule } from './users/users.module';

/** Resource modules of API v1; each feature adds its module here. */
export const FEATURE_MODULES = [
  AccountsModule,
  LocationsModule,
  CarriersModule,
  ReceiversModule,
  AlertPresetsModule,
  ShipmentTemplatesModule,
  UsersModule,
  InvitationsModule,
  PagesModule,
  DevicesModule,
  TelemetryModule,
  AlarmsModule,
  ShipmentsModule,
  ReportsModule,
  AisModule,
  PanelModule,
  AuditEventsModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: AppModule,
      // Global so that every module can inject the one pino logger (LOGGER).
      global: true,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot(dataSourceOptions(config.databaseUrl, undefined, config.databaseTimeouts, config.databaseSession)),
        CommonModule,
        HealthModule,
        AuthModule,
        OutboxModule.forRoot(logger),
        ...FEATURE_MODULES,
      ],
      controllers: [ApiIndexController, SchemaController],
      providers: [
        OpenApiDocumentHolder,
        HousekeepingService,
        { provide: LOGGER, useValue: logger },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
      exports: [LOGGER],
    };
  }
}
