import { Module } from '@nestjs/common';
import { InvitationsModule } from '../invitations/invitations.module';
import { InvitationPageController } from './invitation-page.controller';

/** Server-rendered pages for people (not part of the public API or its OpenAPI description). */
@Module({ imports: [InvitationsModule], controllers: [InvitationPageController] })
export class PagesModule {}
