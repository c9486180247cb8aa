/** The formats live in libs/vocabulary (every layer validates them); re-exported for the domain. */
export * from '@app/vocabulary/formats';
