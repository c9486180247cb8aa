export * from './entities';
export * from './migrations';
export * from './data-source';
