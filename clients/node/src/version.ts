/** Version of this package: written from package.json by scripts/build.js (its one source); do not edit. */
export const VERSION = '1.1.0';
