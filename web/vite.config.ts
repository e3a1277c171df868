// The web dashboard's build: `npm run build:web` bundles web/ into dist/web, which `vts serve`
// serves at `/` (index.html and /assets/*). No CDN: Leaflet and Chart.js are in the bundle.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: false,
  resolve: {
    // Leaflet's package points at its UMD build; its ES module build bundles without a global
    alias: [{ find: /^leaflet$/, replacement: 'leaflet/dist/leaflet-src.esm.js' }],
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // one chunk for the app and its two libraries is ~400 kB raw, ~130 kB gzipped
    chunkSizeWarningLimit: 600,
  },
});
