import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { LOGGER, type AppLogger } from '@app/observability';
import type { Response } from 'express';
import { WebhookNotFoundError } from '@app/webhooks';
import { PanelCsrfRejected, PanelForbidden, PanelNotFound, PanelRateLimited, PanelSignInRequired } from './panel-errors';
import { SIGN_IN_PATH } from './panel-paths';
import type { PanelRequest } from './session/panel-context';
import { csrfRejectedView, forbiddenView, notFoundView, rateLimitedView, unexpectedErrorView } from './panel-error.views';
import { redirectTo } from './ui/layout';
import { PanelPages } from './ui/panel-pages';

/** A person is reading the panel: every failure is a page (or a redirect to sign-in), never JSON. */
@Catch()
export class PanelErrorFilter implements ExceptionFilter {

  constructor(
    private readonly pages: PanelPages,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<PanelRequest>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const context = request.panel ?? null;
    if (exception instanceof PanelSignInRequired) {
      const query = new URLSearchParams();
      if (exception.reason === 'session_expired') query.set('notice', 'session_expired');
      if (request.method === 'GET' || request.method === 'HEAD') query.set('next', request.path);
      const search = query.toString();
      return redirectTo(response, search ? `${SIGN_IN_PATH}?${search}` : SIGN_IN_PATH);
    }
    if (exception instanceof PanelForbidden) return this.pages.send(response, context, forbiddenView());
    if (exception instanceof PanelRateLimited) {
      response.setHeader('Retry-After', String(exception.retryAfterSeconds));
      return this.pages.send(response, context, rateLimitedView(exception.retryAfterSeconds));
    }
    if (exception instanceof PanelCsrfRejected) return this.pages.send(response, context, csrfRejectedView(context !== null));
    if (exception instanceof PanelNotFound || exception instanceof WebhookNotFoundError) return this.pages.send(response, context, notFoundView());
    if (exception instanceof HttpException && exception.getStatus() === 404) return this.pages.send(response, context, notFoundView());
    this.logger.error({ err: exception }, 'panel page failed');
    this.pages.send(response, context, unexpectedErrorView());
  }
}
