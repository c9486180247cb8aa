/** The scope vocabulary lives in libs/vocabulary; re-exported for the domain's credentials. */
export * from '@app/vocabulary/scopes';
