import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { InvitationsService } from '@app/domain';
import { APP_CONFIG } from '../../config/config.module';
import { InvitationEmailRelay } from './invitation-email-relay';
import { InvitationsController } from './invitations.controller';

@Module({
  controllers: [InvitationsController],
  providers: [
    InvitationEmailRelay,
    {
      provide: InvitationsService,
      useFactory: (dataSource: DataSource, config: AppConfig, emails: InvitationEmailRelay) =>
        new InvitationsService(dataSource, { secretsKey: config.secretsKey, publicBaseUrl: config.publicBaseUrl }, emails),
      inject: [getDataSourceToken(), APP_CONFIG, InvitationEmailRelay],
    },
  ],
  exports: [InvitationsService],
})
export class InvitationsModule {}
