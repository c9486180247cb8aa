import { Module } from '@nestjs/common';
import { InvitationEmailRelay } from './invitation-email-relay';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';

@Module({ controllers: [InvitationsController], providers: [InvitationsService, InvitationEmailRelay], exports: [InvitationsService] })
export class InvitationsModule {}
