export * from './entities';
export * from './migrations';
export * from './data-source';
export * from './sql';
export * from './pg-listener';
export * from './database.repository';
export * from './startup-checks';
