import { Controller, Get, Param, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ShareService, SharedShipmentService, TRACKING_PAGE_PATH } from '@app/domain';
import { sendPage } from '../common/html';
import { PageErrorFilter } from './page-error.filter';
import { linkUnavailableView, TRACKING_PAGE_STYLE, trackingPageView } from './tracking-page.views';

/**
 * The public tracking page behind a share link (outside the API base path, no login). Every
 * GET that finds a working link counts one view, atomically (a HEAD answers the same without
 * counting: link checkers and chat unfurlers must not use up a limited link); anything else gets the same
 * plain 404 page, whatever the reason. The token only ever appears in the request path, which
 * the request log redacts.
 */
@Public()
@ApiExcludeController()
@UseFilters(PageErrorFilter)
@Controller(TRACKING_PAGE_PATH)
export class TrackingPageController {
  constructor(
    private readonly shares: ShareService,
    private readonly shipments: SharedShipmentService,
  ) {}

  @Get(':token')
  async show(@Param('token') token: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    const shared = request.method === 'HEAD' ? await this.shares.peekView(token) : await this.shares.consumeView(token);
    const view = shared ? await this.shipments.view(shared) : null;
    if (!view) {
      const unavailable = linkUnavailableView();
      sendPage(response, 404, unavailable.title, unavailable.body, { formAction: "'none'" });
      return;
    }
    const page = trackingPageView(view);
    sendPage(response, 200, page.title, page.body, { style: TRACKING_PAGE_STYLE, formAction: "'none'" });
  }
}
