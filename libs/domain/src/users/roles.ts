/** The role vocabulary lives in libs/vocabulary (the entities need it too); re-exported for the domain's users. */
export * from '@app/vocabulary/roles';
