/**
 * NestJS 12 ships as ES modules, so jest runs in its ESM mode (node --experimental-vm-modules) and
 * ts-jest emits ES modules (tsconfig.jest.json). Production builds stay CommonJS and rely on
 * Node's require(esm). Four projects: unit specs next to the code, end-to-end suites that boot the
 * real apps against real PostgreSQL and RabbitMQ, the container test of the production images, and
 * the broker-cluster test.
 */
const moduleNameMapper = {
  '^@app/(config|database|events|webhook-kit|webhooks|domain|observability|vocabulary)(|/.*)$': '<rootDir>/libs/$1/src$2',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json', useESM: true, diagnostics: false }],
};
const common = {
  rootDir: __dirname,
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform,
  moduleNameMapper,
};

module.exports = {
  // testTimeout is a global option in jest 30 (ignored inside projects).
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test}/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs,test}/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // A primary and a streaming replica of the suite's own (npm run test:replica, after test:pgbouncer
    // in CI): not part of test:jest either, it stops and starts PostgreSQL servers for minutes.
    {
      ...common,
      displayName: 'replica',
      testMatch: ['<rootDir>/test/replica/**/*.replica-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // The production images run under podman (npm run test:containers builds them first); not
    // part of test:jest, which selects the two projects above.
    { ...common, displayName: 'containers', testMatch: ['<rootDir>/test/containers/**/*.containers-spec.ts'] },
    // A 3-node RabbitMQ cluster of its own, nodes killed under load (npm run test:cluster); not
    // part of test:jest either.
    { ...common, displayName: 'cluster', testMatch: ['<rootDir>/test/cluster/**/*.cluster-spec.ts'] },
  ],
};
