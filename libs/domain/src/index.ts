export * from './auth/scopes';
export * from './auth/secret-hash';
export * from './auth/credentials.service';
export * from './accounts/accounts-admin.service';
export * from './demo/demo-seed';
export * from './geo';
export * from './users';
