export * from './event-types';
export * from './envelope';
export * from './outbox';
