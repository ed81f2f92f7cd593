// Vite build of the renderer: a static bundle in renderer/dist loaded by Electron (app:// protocol) or by the e2e
// harness. Kept at the top level so renderer/ itself holds nothing that runs in Node.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
});
