import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '@app/config';
import { DispatcherModule } from './dispatcher.module';
import type { DispatcherOptions } from './dispatcher.tokens';
import { createLogger, PinoNestLogger, type AppLogger } from '@app/observability';

/** Builds and starts the dispatcher (used by main.ts and by the end-to-end tests); not yet listening. */
export async function createDispatcherApp(
  config: AppConfig,
  logger: AppLogger = createLogger(config.logLevel, 'dispatcher'),
  options: DispatcherOptions = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(DispatcherModule.forRoot(config, logger, options), {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  await app.init();
  return app;
}
