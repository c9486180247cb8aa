import { Controller, Get, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../auth/auth.decorators';
import { PanelErrorFilter } from '../panel-error.filter';
import { PANEL_PATH } from '../panel-paths';
import type { PanelContext } from '../session/panel-context';
import { Panel, PanelSessionGuard } from '../session/panel-session.guard';
import { homeView } from '../views/home.views';
import { noticeFrom } from '../views/notices';
import { PanelPages } from '../views/panel-pages';

@Public()
@ApiExcludeController()
@UseGuards(PanelSessionGuard)
@UseFilters(PanelErrorFilter)
@Controller(PANEL_PATH)
export class HomeController {
  constructor(private readonly pages: PanelPages) {}

  @Get()
  show(@Panel() panel: PanelContext, @Res() response: Response, @Query('notice') notice: unknown): void {
    this.pages.send(response, panel, homeView(panel), noticeFrom(notice));
  }
}
