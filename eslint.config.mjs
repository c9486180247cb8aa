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
const FEATURES = ['accounts', 'ais', 'alarms', 'alert-presets', 'carriers', 'devices', 'housekeeping', 'invitations', 'locations', 'pages', 'panel', 'receivers', 'reports', 'shipment-templates', 'shipments', 'telemetry', 'users'];
const boundaries = [
  ...Object.entries(LAYERS).map(([name, above]) => ({
    files: [`libs/${name}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [APP_PATHS, ...above.map(lib)] }] },
  })),
  {
    files: ['apps/api/src/common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: FEATURES.flatMap((feature) => [`../${feature}/*`, `../../${feature}/*`, `../${feature}`, `../../${feature}`]), message: 'common/ never imports a feature module.' }] },
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
