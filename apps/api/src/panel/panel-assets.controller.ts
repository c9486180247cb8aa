import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { PANEL_PATH } from './panel-paths';
import { PanelPublic } from './session/panel-session.guard';
import { PANEL_STYLESHEET } from './ui/panel-stylesheet';

/** The stylesheet: public (the sign-in page needs it too) and cacheable. */
@PanelPublic()
@ApiExcludeController()
@Controller(`${PANEL_PATH}/assets`)
export class PanelAssetsController {
  @Get('panel.css')
  stylesheet(@Res() response: Response): void {
    response
      .status(200)
      .set({
        'Content-Type': 'text/css; charset=utf-8',
        'Cache-Control': 'public, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
        'Cross-Origin-Resource-Policy': 'same-origin',
      })
      .send(PANEL_STYLESHEET);
  }
}
