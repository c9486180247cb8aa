import { Module } from '@nestjs/common';
import { InvitationMailer } from './invitation-mailer';
import { InvitationsController } from './invitations.controller';
import { InvitationsService } from './invitations.service';

@Module({ controllers: [InvitationsController], providers: [InvitationsService, InvitationMailer], exports: [InvitationsService] })
export class InvitationsModule {}
