import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '../../config/config.module';
import type { PanelContext } from '../session/panel-context';
import { sendPanelPage, type PanelView } from './layout';
import type { NoticeCode } from './notices';

/** Sends panel pages with the deployment's transport settings (HSTS only behind https). */
@Injectable()
export class PanelPages {
  private readonly https: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.https = config.publicBaseUrl.startsWith('https:');
  }

  send(response: Response, context: PanelContext | null, view: PanelView, notice: NoticeCode | null = null): void {
    sendPanelPage(response, context, view, notice, this.https);
  }
}
