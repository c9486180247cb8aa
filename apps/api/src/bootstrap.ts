import type { Server } from 'node:http';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@app/config';
import { AppModule } from './app.module';
import { auditContext } from './audit-events/audit-context';
import { rejectPrototypeKeys, requireJsonBodies } from './common/body-guards';
import { rejectUnstorableText, verifyJsonDepth } from './common/hostile-input';
import { API_PREFIX } from './common/public-api-controller';
import { JsonReplyExpressAdapter } from './common/json-reply.adapter';
import { createValidationPipe } from './common/validation';
import { createLogger, PinoNestLogger, type AppLogger } from '@app/observability';
import { ReadReplicaService } from './database/read-replica.service';
import { Metrics } from './observability/metrics';
import { requestId, requestLogger } from './observability/request-logging';
import { buildOpenApiDocument, OpenApiDocumentHolder } from './openapi/openapi-document';

export const BODY_LIMIT = '1mb';

/** Builds the fully configured api application (used by main.ts and by the end-to-end tests). */
export async function createApiApp(config: AppConfig, logger: AppLogger = createLogger(config.logLevel, 'api')): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logger), new JsonReplyExpressAdapter(), {
    logger: new PinoNestLogger(logger),
    bodyParser: false,
    abortOnError: false,
  });
  app.disable('x-powered-by');
  app.set('etag', false); // see JsonReplyExpressAdapter
  app.set('trust proxy', config.trustProxy);
  app.use(requestId());
  app.use(requestLogger(logger));
  app.use(app.get(Metrics).middleware());
  app.use(requireJsonBodies());
  // Nest's type omits `verify` (it uses the hook for rawBody, which this app does not enable): the
  // depth check must see the raw bytes before JSON.parse does.
  const jsonOptions = { limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], verify: verifyJsonDepth };
  app.useBodyParser('json', jsonOptions as Parameters<typeof app.useBodyParser<'json'>>[1]);
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: false });
  app.use(rejectPrototypeKeys());
  app.use(rejectUnstorableText());
  // After the body parsers (their stream callbacks would leave the request's context): every
  // later step, guards and handlers, runs in the request's read-routing context.
  app.use(app.get(ReadReplicaService).middleware());
  app.use(auditContext());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();

  // Swagger's routes must be registered before init() adds the not-found handler.
  const document = buildOpenApiDocument(app, config);
  app.get(OpenApiDocumentHolder).document = document;
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    customSiteTitle: 'Cold Chain Telemetry Public API v1',
    swaggerOptions: {
      persistAuthorization: true,
      displayRequestDuration: true,
      oauth2RedirectUrl: `${config.publicBaseUrl}/${API_PREFIX}/docs/oauth2-redirect.html`,
    },
    raw: false,
  });
  await app.init();
  // Idle keep-alive connections outlive the client's and a load balancer's idle timeout (commonly
  // 60 s), so the server is never the side that closes a connection a client is about to reuse
  // (which surfaces as a dropped request). Headers must still arrive within the usual bound.
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return app;
}
