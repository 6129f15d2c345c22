/**
 * Four projects: `unit` (pure, fast), `workflow` (the workflow on the time-skipping test server), `e2e` (one real stack shared by all files: Temporal dev server,
 * simulator, worker, API), and `system` (files that start their own stacks to kill, restart or scale parts).
 */
/** The AI SDK provider's dependencies that jest's CommonJS runtime cannot load as installed (ES modules; zod's locales). */
const AI_SDK_ESM = '(ai|@ai-sdk/[^/]+|@vercel/oidc|@workflow/[^/]+|zod)';
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
  // Kysely's 0.29 line ships only ES modules, which jest's CommonJS runtime cannot load (Node can): compiled like our
  // code. The pinned 0.28 line (Node 20) ships CommonJS beside them; the transform keeps either working.
  'node_modules/kysely/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  // The AI SDK (`ai` 7, `@ai-sdk/*`, and what they import) ships only ES modules too; it is installed in the
  // provider package's own node_modules (clients/ai-sdk), whose tests run in the e2e project.
  [`clients/ai-sdk/node_modules/${AI_SDK_ESM}/.+\\.js$`]: ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const common = {
  testEnvironment: 'node',
  transform,
  // A file matching any pattern is left as it is: one pattern, naming every package compiled above.
  transformIgnorePatterns: [`/node_modules/(?!(kysely|${AI_SDK_ESM})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 120_000,
};

/** The topology step's files (.ci/run runs them alone, with these paths). */
const TOPOLOGY_TESTS = ['<rootDir>/test/system/topology\\.test\\.ts$', '<rootDir>/test/system/cluster\\.test\\.ts$'];

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    // The generation workflow on Temporal's time-skipping test server, activities scripted.
    { ...common, displayName: 'workflow', testMatch: ['<rootDir>/test/workflow/**/*.test.ts'] },
    {
      ...common,
      displayName: 'e2e',
      // The AI SDK provider's tests drive the package (clients/ai-sdk) with the SDK's own functions against this stack.
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/clients/ai-sdk/test/**/*.test.ts'],
      // The provider is an ES module package: its imports name the compiled `.js` of each source file.
      moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'system',
      testMatch: ['<rootDir>/test/system/**/*.test.ts'],
      // The production topology's tests (the real Temporal server under faults, `npm run cluster`) run in a CI step
      // of their own (.ci/run), bounded apart from the rest; that CI's `npm test` sets JEST_SKIP_TOPOLOGY so they do
      // not run twice. A plain `npm test` runs them with everything else.
      testPathIgnorePatterns: ['/node_modules/', ...(process.env.JEST_SKIP_TOPOLOGY ? TOPOLOGY_TESTS : [])],
    },
  ],
  testTimeout: 120_000,
};
