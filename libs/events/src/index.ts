export * from './event-types';
export * from './envelope';
export * from './outbox.repository';
export * from './topology';
export * from './broker-connection';
export * from './event-signature';
export * from './queue-type';
export * from './startup-checks';
