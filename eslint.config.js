// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

/** Relative imports reaching into one of these top-level folders. */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

module.exports = tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', '.tools/', 'coverage/', 'test-results/', '**/*.js'] },
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
    // agree with our own mistakes, so it imports nothing of the gateway (design.md §1).
    files: ['sim/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: into([
                'core',
                'platforms',
                'pricing',
                'ledger',
                'results',
                'api',
                'workflows',
                'activities',
                'worker',
                'scripts',
                'test',
                'bench',
              ]),
              message: "The simulator imports nothing from the gateway: write what it needs under sim/, from the platforms' documentation.",
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: only core/ (no I/O) and its own folder.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: into(['platforms', 'pricing', 'ledger', 'results', 'api', 'worker', 'sim', 'scripts']),
              message: 'Workflows import only core/ and workflows/ (and activity types).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
