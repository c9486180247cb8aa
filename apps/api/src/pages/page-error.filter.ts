import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { sendPage } from './html';
import { unexpectedErrorView } from './invitation-page.views';

/** A person is reading these pages: an unexpected failure is an HTML page, not problem JSON. */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HostedPages');

  catch(exception: unknown, host: ArgumentsHost): void {
    this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const view = unexpectedErrorView();
    sendPage(response, 500, view.title, view.body);
  }
}
