/** Front door of the accounts family: customer accounts (the allow-listed profiles, their administration). Services and types only; its repositories stay inside the folder. */
export * from './accounts-admin.service';
export * from './accounts.service';
export * from './account-lookup';
