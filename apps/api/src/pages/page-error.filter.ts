import { type ArgumentsHost, Catch, type ExceptionFilter, Inject } from '@nestjs/common';
import { LOGGER, type AppLogger } from '@app/observability';
import type { Response } from 'express';
import { html, sendPage } from '../common/html';
import { unexpectedErrorView } from './invitation-page.views';
import { PageRateLimited } from './page-rate-limit.guard';

/** A person is reading these pages: an unexpected failure is an HTML page, not problem JSON. */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (exception instanceof PageRateLimited) {
      if (response.headersSent) return;
      response.setHeader('Retry-After', String(exception.retryAfterSeconds));
      const wait = Math.max(1, Math.ceil(exception.retryAfterSeconds / 60));
      const body = html`<h1>Too many attempts</h1><p role="alert">Nothing was changed. Wait ${wait} minute${wait === 1 ? '' : 's'} and try again.</p>`;
      return sendPage(response, 429, 'Too many attempts', body);
    }
    this.logger.error({ err: exception }, 'hosted page failed');
    if (response.headersSent) return;
    const view = unexpectedErrorView();
    sendPage(response, 500, view.title, view.body);
  }
}
