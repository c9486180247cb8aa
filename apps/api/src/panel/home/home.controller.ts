import { Controller, Get, Query, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { WebhookEndpointsService } from '@app/webhooks';
import { PanelErrorFilter } from '../panel-error.filter';
import { PANEL_PATH } from '../panel-paths';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelSession } from '../session/panel-session.guard';
import { homeView } from './home.views';
import { noticeFrom } from '../ui/notices';
import { PanelPages } from '../ui/panel-pages';

/** The overview, for every signed-in person of the company. */
@PanelSession()
@ApiExcludeController()
@UseFilters(PanelErrorFilter)
@Controller(PANEL_PATH)
export class HomeController {
  constructor(
    private readonly pages: PanelPages,
    private readonly webhooks: WebhookEndpointsService,
  ) {}

  @Get()
  async show(@Panel() panel: PanelContext, @Res() response: Response, @Query('notice') notice: unknown): Promise<void> {
    const [endpoints, successRates] = await Promise.all([this.webhooks.list(panel.account.id), this.webhooks.successRates(panel.account.id)]);
    this.pages.send(response, panel, homeView(panel, endpoints, successRates), noticeFrom(notice));
  }
}
