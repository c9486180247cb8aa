/** Version of this package (kept equal to clients/node/package.json by test/clients/node-generated.spec.ts). */
export const VERSION = '1.0.0';
