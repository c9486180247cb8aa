export * from './logger';
export * from './readiness';
