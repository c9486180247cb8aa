import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { CredentialsService } from '@app/domain';
import { WebhookEndpointsService, WebhookEventLog, WebhookBulkResend, WebhookRecovery } from '@app/webhooks';
import { APP_CONFIG } from '../config/config.module';
import { PanelAuditLogController } from './audit/panel-audit-log.controller';
import { PanelCredentialsController } from './credentials/panel-credentials.controller';
import { HomeController } from './home/home.controller';
import { PanelAssetsController } from './panel-assets.controller';
import { PanelErrorFilter } from './panel-error.filter';
import { PanelSessionGuard } from './session/panel-session.guard';
import { PanelSessionsRepository } from './session/panel-sessions.repository';
import { SignInController } from './sign-in/sign-in.controller';
import { SignInService } from './sign-in/sign-in.service';
import { SignInThrottle } from './sign-in/sign-in-throttle';
import { PanelPages } from './ui/panel-pages';
import { PanelWebhooksController } from './webhooks/panel-webhooks.controller';
import { PanelWebhookEventsController } from './webhooks/panel-webhook-events.controller';
import { TwoWayPaginator } from '../common/paginator';

/**
 * The web panel for a company's people, at /panel/ (server-rendered HTML, outside the public API
 * and its OpenAPI description).
 *
 * Every panel route declares its access with the panel's own decorators
 * (session/panel-session.guard.ts), never `@Public()`:
 * - `@PanelSession(...roles)` — the PanelSessionGuard: a PostgreSQL-backed session cookie, the CSRF
 *   token on every POST, the roles (none listed: every signed-in person), the panel's rate limits;
 * - `@PanelPublic()` — the sign-in page (its own CSRF check and rate limits) and the stylesheet.
 * Both mark the route as the panel's, so the API's global guards (token → rate limit → scopes →
 * tenant), which authenticate API tokens a browser does not have, stand aside; a panel route that
 * declares neither is refused by them like an undeclared API route. The route table
 * (test/route-scopes.json) lists each route as `panel-session` with its roles, or `panel-public`.
 *
 * Roles: API credentials — COMPANY_ADMIN; webhooks — COMPANY_ADMIN and MANAGER (panel-roles.ts); the
 * webhook event log — every signed-in person reads it, COMPANY_ADMIN and MANAGER resend; the audit
 * log — COMPANY_ADMIN.
 */
@Module({
  controllers: [SignInController, HomeController, PanelCredentialsController, PanelWebhooksController, PanelWebhookEventsController, PanelAuditLogController, PanelAssetsController],
  providers: [
    PanelSessionsRepository,
    PanelSessionGuard,
    PanelErrorFilter,
    PanelPages,
    SignInService,
    SignInThrottle,
    TwoWayPaginator,
    {
      provide: WebhookEventLog,
      inject: [getDataSourceToken(), APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) => new WebhookEventLog(dataSource, { retentionDays: config.webhookRetentionDays }),
    },
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
    {
      provide: WebhookBulkResend,
      inject: [getDataSourceToken(), APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new WebhookBulkResend(dataSource, { maxEvents: config.webhookRecoveryMaxEvents, retentionDays: config.webhookRetentionDays }),
    },
    {
      provide: WebhookRecovery,
      inject: [getDataSourceToken(), APP_CONFIG],
      useFactory: (dataSource: DataSource, config: AppConfig) =>
        new WebhookRecovery(dataSource, { maxEvents: config.webhookRecoveryMaxEvents, retentionDays: config.webhookRetentionDays }),
    },
  ],
  exports: [PanelSessionsRepository],
})
export class PanelModule {}
