import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NextFunction, Request, Response } from 'express';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { attachReadReplica, detachReadReplica, ReadReplica, replayPosition, sql, walPosition, withReadRouting } from '@app/database';
import { LOGGER, ReadinessRegistry, type AppLogger } from '@app/observability';
import { APP_CONFIG } from '../config/config.module';

/** Methods that never write: their requests do not pin the credential's reads to the primary. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The read replica of the api (DATABASE_REPLICA_URL): started with the app, attached to its data
 * source so that `sql` routes the statements declared `replica`/`failover` (libs/database
 * ReadReplica), reported by `/health/ready` as an advisory check: a replica that is away or too far
 * behind degrades the api (every read on the primary) but does not make it unready.
 */
@Injectable()
export class ReadReplicaService implements OnModuleInit, OnApplicationShutdown {
  readonly replica: ReadReplica | null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly readiness: ReadinessRegistry,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    const settings = config.databaseReplica;
    this.replica = settings
      ? new ReadReplica(settings.url, () => sql.poolOf(dataSource), {
          maxLagMs: settings.maxLagMs,
          positions: { wal: walPosition, replay: replayPosition },
          pool: { max: 10, connectionTimeoutMillis: Math.min(config.databaseTimeouts.connectionTimeoutMs, 2000), statement_timeout: config.databaseTimeouts.statementTimeoutMs },
        })
      : null;
  }

  async onModuleInit(): Promise<void> {
    const replica = this.replica;
    if (!replica) return;
    await replica.start();
    attachReadReplica(this.dataSource, replica);
    let wasUsable: boolean | null = null;
    this.readiness.register({
      name: 'database-replica',
      advisory: true,
      check: () => {
        const state = replica.state();
        if (state.usable !== wasUsable) {
          wasUsable = state.usable;
          if (state.usable) this.logger.info({ lagMs: state.lagMs }, 'read replica in use');
          else this.logger.warn({ reason: state.reason }, 'read replica not in use: its reads run on the primary');
        }
        return state.usable ? Promise.resolve() : Promise.reject(new Error(`${state.reason}; its reads run on the primary`));
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.replica) return;
    detachReadReplica(this.dataSource);
    await this.replica.close();
  }

  /**
   * Express middleware: each request runs in its own routing context. Once the token guard names
   * the credential, a write request (any method but GET/HEAD/OPTIONS) pins that credential's
   * lag-tolerant reads to the primary until the replica has replayed past the write's end.
   */
  middleware(): (request: Request, response: Response, next: NextFunction) => void {
    const replica = this.replica;
    return (request, response, next) => {
      if (!replica || SAFE_METHODS.has(request.method)) return withReadRouting(next);
      withReadRouting(next, (subject) => {
        replica.writeStarted(subject);
        let ended = false;
        const end = (): void => {
          if (ended) return;
          ended = true;
          replica.writeEnded(subject);
        };
        response.once('finish', end);
        response.once('close', end);
      });
    };
  }
}
