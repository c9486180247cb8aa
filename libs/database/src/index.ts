export * from './entities';
export * from './migrations';
export * from './data-source';
export * from './legacy-sql';
export * from './sql';
export * from './pg-listener';
