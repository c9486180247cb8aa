export * from './audit-context';
export * from './audited-pool';
export * from './audit.queries';
export * from './audit.repository';
export * from './audit-export';
