import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = import.meta.dirname;
const api = 'http://localhost:3000';

/** The portal SPA. `npm run build` writes portal/dist, which the server serves with an index.html fallback. */
export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: resolve(root, 'dist'),
    emptyOutDir: true,
  },
  server: {
    proxy: {
      '/auth': api,
      '/api': api,
      '/oauth2': api,
      '/healthz': api,
    },
  },
});
