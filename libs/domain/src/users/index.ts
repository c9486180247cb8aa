export * from './roles';
export * from './invitation-link';
export * from './invitation-mail';
export * from './invitation-writer';
export * from './invitation-email-outbox';
export * from './users.repository';
