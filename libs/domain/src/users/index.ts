/** Front door of the users family: users and invitations. Services and types only; its repositories stay inside the folder. */
export * from './invitation-link';
export * from './invitation-mail';
export * from './invitation-writer';
export * from './invitation-email-outbox';
export * from './users.errors';
export * from './users.service';
export * from './invitations.errors';
export * from './invitations.service';
export * from './password-policy';
