// Lint: the layers (scripts/layers.mjs), and a few rules that catch real defects. Style is
// prettier's job (.prettierrc.json), not the linter's. `npm run lint`.
import tseslint from 'typescript-eslint';
import layers from './scripts/eslint-layers.mjs';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.e2e/',
      '.matrix/',
      'test-results/',
      '.bench-runs/',
      '.tsbuild/',
      'syntaxes/',
      '**/*.d.ts',
      '**/*.d.mts',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, 'proxy-tuner': layers },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'proxy-tuner/layers': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-require-imports': 'error',
      'no-debugger': 'error',
      'no-unused-private-class-members': 'error',
    },
  },
  {
    // the language server's stdout is the LSP channel and the service is what the CLI prints:
    // nothing there may write to the console; the CLI, bench and scripts report through their own outputs
    files: ['server/src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
);
