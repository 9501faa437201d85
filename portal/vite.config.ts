import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const root = import.meta.dirname;
const api = 'http://localhost:3000';

/**
 * Writes a brotli (.br) and a gzip (.gz) copy next to each script and style sheet, which the
 * server sends to browsers that accept them (src/http/portal.ts): the sign-in page's script is
 * ~500 kB as it is and ~120 kB as brotli. Compressed once here, at the highest levels, rather than
 * on every request; small files are not worth it.
 */
function precompress(): Plugin {
  return {
    name: 'nyckel-precompress',
    apply: 'build',
    // After the files are written: Vite still rewrites some of them (CSS) in its own last hooks.
    writeBundle(options, bundle) {
      for (const fileName of Object.keys(bundle)) {
        if (!/\.(js|css|svg)$/.test(fileName)) continue;
        const path = resolve(options.dir!, fileName);
        const source = readFileSync(path);
        if (source.byteLength < 1024) continue;
        const brotli = brotliCompressSync(source, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: source.byteLength },
        });
        writeFileSync(`${path}.br`, brotli);
        writeFileSync(`${path}.gz`, gzipSync(source, { level: 9 }));
      }
    },
  };
}

/**
 * The portal SPA. `npm run build` writes portal/dist, which the server serves with an index.html
 * fallback. A build is always React's production build: Vite takes NODE_ENV from the environment,
 * and a build started under vitest (NODE_ENV=test: the browser tests build a missing or stale
 * portal) was React's development build, with StrictMode running every effect twice, so the
 * browser tests drove another program than the one served.
 */
export default defineConfig(({ command }) => {
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root,
    plugins: [react(), precompress()],
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
  };
});
