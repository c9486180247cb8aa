import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { AppConfig } from '@app/config';
import { type AppLogger, LOGGER } from '@app/observability';
import { APP_CONFIG } from '../../config/config.module';

/**
 * Where the API's own limits (per credential, token endpoint per client address) are counted.
 *
 * With REDIS_URL: in Redis, shared by every api replica (rate-limiter-flexible's RateLimiterRedis,
 * one atomic Lua increment per request). The ioredis client has its offline queue off and bounded
 * connect and command timeouts (REDIS_TIMEOUT_MS), and the limiter refuses to wait for a connection
 * that is not ready: while Redis is unreachable or slow, an in-memory counter with the same budget
 * (the library's insurance limiter) answers at once, per replica, and Redis takes over again when
 * it is back (ioredis keeps reconnecting). A request is never failed or stalled because of Redis.
 *
 * Without REDIS_URL (development, one replica): in this process's memory.
 */
@Injectable()
export class ApiLimitStore implements OnApplicationShutdown {
  private readonly redis: Redis | undefined;
  private redisDown = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    if (!config.redisUrl) return;
    this.redis = new Redis(config.redisUrl, {
      enableOfflineQueue: false, // a command while disconnected fails at once (the insurance limiter answers)
      maxRetriesPerRequest: 0, // never resend a command after a reconnect: it would count twice or late
      connectTimeout: config.redisTimeoutMs,
      commandTimeout: config.redisTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000), // keep reconnecting, at most every 2 s
      connectionName: 'coldchain-api-rate-limits',
    });
    // Log a change of state once, not every reconnect attempt (the URL may hold a password: never logged).
    this.redis.on('error', (error: Error) => {
      if (this.redisDown) return;
      this.redisDown = true;
      this.logger.warn({ err: error.message }, 'Redis unreachable: API rate limits are counted per replica until it is back');
    });
    this.redis.on('ready', () => {
      if (!this.redisDown) return;
      this.redisDown = false;
      this.logger.info('Redis is back: API rate limits are shared by every replica again');
    });
  }

  /** Whether the limits are counted in Redis (with REDIS_URL) rather than per replica. */
  get shared(): boolean {
    return this.redis !== undefined;
  }

  /** Whether the Redis connection is up (false without REDIS_URL): while it is not, the insurance limiter counts. */
  get redisReady(): boolean {
    return this.redis?.status === 'ready';
  }

  /** A fixed-window limiter of `points` per `durationSeconds` for each key. */
  limiter(name: string, points: number, durationSeconds: number): RateLimiterAbstract {
    const memory = (keyPrefix: string): RateLimiterMemory => new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds });
    if (!this.redis) return memory(name);
    return new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: `${this.config.redisKeyPrefix}:rate-limit:${name}`,
      points,
      duration: durationSeconds,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory(`${name}-insurance`),
    });
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect(); // not quit(): it would wait for an unreachable Redis
  }
}
