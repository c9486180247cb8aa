// Type-aware lint rules from the style guide: no floating promises, no `any`, type-only imports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Import boundaries (the layers, bottom up): vocabulary → webhook-kit → config, observability →
// database → events → webhooks → domain → apps. A layer imports only from layers below it, so no
// loop can form between libraries; libs never import apps; the api's common/ never imports a
// feature module. webhook-kit (the receiver kit customers copy) imports nothing of the project but
// vocabulary, and every other library may import it.
const APP_PATHS = { group: ['**/apps/**', '../../apps/*', '../../../apps/*'], message: 'libs never import apps: move shared code to a lib.' };
const lib = (name) => ({ group: [`@app/${name}`, `@app/${name}/*`], message: `this layer must not import @app/${name} (see the layering in eslint.config.mjs).` });
const LAYERS = {
  vocabulary: ['webhook-kit', 'config', 'observability', 'database', 'events', 'webhooks', 'domain'],
  'webhook-kit': ['config', 'observability', 'database', 'events', 'webhooks', 'domain'],
  config: ['observability', 'database', 'events', 'webhooks', 'domain'],
  observability: ['database', 'events', 'webhooks', 'domain'],
  database: ['events', 'webhooks', 'domain'],
  events: ['webhooks', 'domain'],
  webhooks: ['domain'],
  domain: [],
};
// Families (libs/domain/src/<family>, libs/webhooks): each shows a front door, its index.ts, with
// services and types; its *.repository modules are private to the folder. The demo owner
// (libs/domain/src/demo) holds the seed statements, for the CLI only.
const PRIVATE = 'a *.repository module is private to its family: use the family\'s door (its index.ts).';
const REPOSITORY_OUTSIDE = { group: ['../*/*.repository', '../*/**/*.repository', '@app/**/*.repository'], message: PRIVATE };
const LIB_REPOSITORY = { group: ['@app/**/*.repository', '**/libs/**/*.repository'], message: PRIVATE };
const NEST_IN_DOMAIN = { group: ['@nestjs/*'], message: 'libs/domain stays framework-free: no @nestjs/* import.' };
const DEMO_DOOR = { group: ['@app/domain/demo', '@app/domain/demo/*'], message: 'the demo seed is for the CLI only.' };
const FEATURES = ['accounts', 'ais', 'alarms', 'alert-presets', 'carriers', 'devices', 'housekeeping', 'locations', 'pages', 'panel', 'receivers', 'reports', 'shipment-templates', 'shipments', 'telemetry', 'users'];
const boundaries = [
  ...Object.entries(LAYERS).map(([name, above]) => ({
    files: [`libs/${name}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [APP_PATHS, ...above.map(lib), ...(name === 'domain' ? [NEST_IN_DOMAIN, REPOSITORY_OUTSIDE] : [])] }] },
  })),
  { files: ['apps/**/*.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [LIB_REPOSITORY] }] } },
  { files: ['apps/api/**/*.ts', 'apps/dispatcher/**/*.ts'], rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [LIB_REPOSITORY, DEMO_DOOR] }] } },
  {
    files: ['apps/api/src/common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [LIB_REPOSITORY, DEMO_DOOR, { group: FEATURES.flatMap((feature) => [`../${feature}/*`, `../../${feature}/*`, `../${feature}`, `../../${feature}`]), message: 'common/ never imports a feature module.' }] },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'clients/*/dist/**', 'clients/*/bin/**', 'clients/*/obj/**', 'node_modules/**', '.data/**', 'coverage/**', 'scripts/**', 'clients/*/scripts/**', '*.config.js', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...boundaries,
);
