import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { defineConfig } from 'vitest/config';

// The UI lives in ui/ (ui/index.html is the entry) whatever the working directory is.
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  // Relative asset URLs: the bundle is served from Tauri's custom protocol.
  base: './',
  // Keep Vite's and Vitest's caches in the repo's (ignored) node_modules, not in ui/.
  cacheDir: '../node_modules/.vite',
  plugins: [svelte({ configFile: false }), svelteTesting()],
  clearScreen: false,
  server: {
    host: '127.0.0.1',
    port: 1420,
    strictPort: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The app ships with a strict CSP (no data: URLs): always emit assets as files.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    reporters: [['default', { summary: true }]],
  },
});
