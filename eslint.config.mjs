// ESLint for the whole repository: typescript-eslint's type-checked recommended rules on the
// TypeScript (src/, test/, bench/), ESLint's recommended rules on the plain Node scripts (.mjs).
// Formatting is Prettier's job (.prettierrc.json); no rule here is about layout.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'dist-test/', '.dist-*/', 'coverage/', 'data/', '.tmp/', 'helm/', 'bench/discovery/']),
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // Each file is checked with the tsconfig.json nearest to it: the root one for src/ and
      // test/, bench/tsconfig.json for bench/.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A leading underscore marks a name kept on purpose: a field left out of a rest copy, a
      // parameter an interface requires.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Passing on a rejection as it came (an `unknown`, as every caught error is here) is allowed,
      // as only-throw-error allows rethrowing one; a new rejection must still be an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test() and describe() return a promise the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
    },
  },
);
