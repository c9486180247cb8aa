import { Module } from '@nestjs/common';
import { InvitationsModule } from '../users/invitations/invitations.module';
import { ShipmentsModule } from '../shipments/shipments.module';
import { InvitationPageController } from './invitation-page.controller';
import { TrackingPageController } from './tracking-page.controller';

/** Server-rendered pages for people (not part of the public API or its OpenAPI description). */
@Module({ imports: [InvitationsModule, ShipmentsModule], controllers: [InvitationPageController, TrackingPageController] })
export class PagesModule {}
