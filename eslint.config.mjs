// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'sdk/dist/**',
      'node_modules/**',
      'sdk/schema.d.ts',
      'coverage/**',
      'var/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through ConfigService (src/config).',
        },
      ],
    },
  },
  {
    files: [
      'src/config/**',
      'src/database/data-source.ts',
      'test/**',
      'bench/**',
      // Client programs, not the service: they read their own few variables.
      'examples/**',
      'src/cli.ts',
      'src/main.ts',
      'src/worker.ts',
      'src/openapi.ts',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Production code: a function a reviewer can hold in their head (tests, benchmarks and fixtures are
    // exempt: a describe() block or a data table is long by nature). docs/decisions/0040.
    files: ['src/**/*.ts', 'tools/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      complexity: ['error', 20],
    },
  },
);
