export * from './query';
export * as sql from './sql';
export type { Db, SqlResult } from './sql';
