import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

// Same shape as the api's logger (apps/api/src/observability/logger.ts); apps never import each other.
export const LOGGER = Symbol('LOGGER');
export type AppLogger = Logger;

/** The dispatcher never logs secrets; these paths are redacted in case a payload ever carries one. */
const REDACTED_PATHS = ['*.secret', '*.signing_secret', '*.secret_ciphertext', '*.authorization'];

export function createLogger(level: string, name: string): AppLogger {
  return pino({
    name,
    level: process.env.NODE_ENV === 'test' && !process.env.LOG_LEVEL ? 'silent' : level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: AppLogger) {}
  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
