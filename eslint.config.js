import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import ts from 'typescript-eslint';

export default defineConfig(
  {
    // The UI and the root JS configs are linted here; Rust, build output and dependencies are not.
    ignores: [
      '**/node_modules/',
      '**/dist/',
      'target/',
      'src-tauri/',
      'tests/',
      'scripts/',
      // Generated from the Rust wire types (tests/wire_types.rs).
      'ui/src/ipc/generated/',
    ],
  },
  js.configs.recommended,
  ts.configs.recommended,
  svelte.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.browser },
    },
  },
  {
    files: ['eslint.config.js', 'ui/vite.config.ts'],
    languageOptions: {
      globals: { ...globals.node },
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        extraFileExtensions: ['.svelte'],
        parser: ts.parser,
      },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'svelte/no-at-html-tags': 'error',
      // The strict CSP blocks style attributes: styles live in CSS (or CSSOM from code).
      'svelte/no-inline-styles': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tauri-apps/*'],
              message: 'Only ui/src/ipc/ may talk to Tauri: import from ui/src/ipc instead.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['ui/src/ipc/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
