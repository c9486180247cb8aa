import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';

export const LOGGER = Symbol('LOGGER');
export type AppLogger = Logger;

/** Paths that may carry a credential; pino replaces them before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.client_secret',
  '*.password',
  '*.token',
  '*.access_token',
  '*.signing_secret',
  '*.secret',
  '*.secret_ciphertext',
  '*.previous_secret_ciphertext',
  '*.previousSecret',
  '*.authorization',
];

export function createLogger(level: string, name: string, destination?: DestinationStream): AppLogger {
  const options = {
    name,
    level: process.env.NODE_ENV === 'test' && !process.env.LOG_LEVEL ? 'silent' : level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Routes Nest's own log lines into the same structured JSON stream. */
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
