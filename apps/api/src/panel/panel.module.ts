import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { CredentialsService } from '@app/domain';
import { WebhookEndpointsService } from '@app/webhooks';
import { APP_CONFIG } from '../config/config.module';
import { PanelCredentialsController } from './credentials/panel-credentials.controller';
import { HomeController } from './home/home.controller';
import { PanelAssetsController } from './panel-assets.controller';
import { PanelErrorFilter } from './panel-error.filter';
import { PanelSessionGuard } from './session/panel-session.guard';
import { PanelSessionsRepository } from './session/panel-sessions.repository';
import { SignInController } from './sign-in/sign-in.controller';
import { SignInService } from './sign-in/sign-in.service';
import { SignInThrottle } from './sign-in/sign-in-throttle';
import { PanelPages } from './views/panel-pages';
import { PanelWebhooksController } from './webhooks/panel-webhooks.controller';

/**
 * The web panel for a company's people, at /panel/ (server-rendered HTML, outside the public API
 * and its OpenAPI description).
 *
 * Every panel route is `@Public()` for the API's global guards (token → rate limit → scopes →
 * tenant), so the route table lists them as `public`: those guards authenticate API tokens, which
 * a browser does not have. The panel's own PanelSessionGuard protects every page except sign-in and
 * the stylesheet: a PostgreSQL-backed session cookie, the role (`@PanelRoles`), and the CSRF token
 * on every POST. Sign-in has its own CSRF check and rate limits.
 *
 * Roles: API credentials — COMPANY_ADMIN; webhooks — COMPANY_ADMIN and MANAGER (panel-roles.ts).
 */
@Module({
  controllers: [SignInController, HomeController, PanelCredentialsController, PanelWebhooksController, PanelAssetsController],
  providers: [
    PanelSessionsRepository,
    PanelSessionGuard,
    PanelErrorFilter,
    PanelPages,
    SignInService,
    SignInThrottle,
    { provide: CredentialsService, inject: [getDataSourceToken()], useFactory: (dataSource: DataSource) => new CredentialsService(dataSource) },
    {
      provide: WebhookEndpointsService,
      inject: [getDataSourceToken(), APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new WebhookEndpointsService(dataSource, {
          secretsKey: config.secretsKey,
          allowPrivateTargets: config.webhookAllowPrivateTargets,
          dnsServers: config.webhookDnsServers,
          dnsTimeoutMs: config.webhookDnsTimeoutMs,
          maxEndpointsPerAccount: config.webhookMaxEndpointsPerAccount,
        }),
    },
  ],
  exports: [PanelSessionsRepository],
})
export class PanelModule {}
