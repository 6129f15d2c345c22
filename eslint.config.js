// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

/** Relative imports reaching into one of these top-level folders. */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

/**
 * The same, from a file `depth` folders below the root: only a path that climbs exactly to the root reaches a
 * top-level folder (inside workflows/generation/, `../capacity` is workflows/capacity.ts, not capacity/).
 */
const intoFrom = (depth, folders) => `^(\\.\\./){${depth}}(${folders.join('|')})(/|$)`;
/** How deep the gateway's sources go: a folder, and up to four folders inside it. */
const DEPTHS = [1, 2, 3, 4, 5];

/** The gateway's folders, and which of them each may import from (its floor and those below). */
const { GATEWAY_FOLDERS, LAYERS } = require('./scripts/layers.json');

module.exports = tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'clients/*/dist/',
      'clients/*/node_modules/',
      'data/',
      '.tools/',
      'coverage/',
      'test-results/',
      '**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The simulator is our witness of the platforms, written from their documentation: it must not be able to
    // agree with our own mistakes, so it imports nothing of the gateway.
    files: ['sim/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: into(GATEWAY_FOLDERS.filter((f) => f !== 'sim')),
              message: "The simulator imports nothing from the gateway: write what it needs under sim/, from the platforms' documentation.",
            },
          ],
        },
      ],
    },
  },
  {
    // The operator's console runs in the browser and speaks to the gateway only through the admin API over HTTP:
    // it imports nothing of the gateway (nor could its bundle carry the server's code).
    files: ['console/**/*.{ts,tsx,mts}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: into(GATEWAY_FOLDERS.filter((f) => f !== 'console')),
              message: 'The console imports nothing from the gateway: it reaches it through the admin API only.',
            },
          ],
        },
      ],
    },
  },
  // The house's floors (docs/architecture.md): each folder imports only from the floors below it, never up, and
  // the two front doors (api/, worker/) never from each other; test/unit/architecture.test.ts checks the same table
  // on the whole import graph. Workflow code runs in Temporal's deterministic sandbox: it takes only core/ and the
  // activities' types.
  ...Object.entries(LAYERS).flatMap(([folder, may]) =>
    DEPTHS.map((depth) => ({
      files: [`${folder}/${'*/'.repeat(depth - 1)}*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: intoFrom(
                  depth,
                  GATEWAY_FOLDERS.filter((f) => f !== folder && !may.includes(f)),
                ),
                message: `${folder}/ imports only from ${may.length > 0 ? may.map((f) => `${f}/`).join(', ') : 'nothing else'} (docs/architecture.md: nothing imports upward; api/ and worker/ never import each other).`,
              },
            ],
          },
        ],
      },
    })),
  ),
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
