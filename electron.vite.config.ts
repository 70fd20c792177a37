import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { bootChunks, preloadAppChunk } from './scripts/preload-app-chunk.ts'

// Three builds, one per side of the app (see DESIGN.md). Dependencies of main
// and preload stay external: keytar and undici are loaded from node_modules.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve(__dirname, 'src-main/index.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    plugins: [svelte(), preloadAppChunk()],
    // The sync worker (data/sync-worker/) is a module worker.
    worker: { format: 'es' },
    build: {
      outDir: 'out/renderer',
      // Half the bytes to load and parse at every start (1.3 MB to 0.6 MB): the first screen comes sooner.
      minify: true,
      // One style sheet, linked from index.html: the last screen (first-paint/screen-copy.ts) is painted
      // before any of the app's code runs, so no style of it may come with a chunk.
      cssCodeSplit: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-renderer/index.html') },
        output: { codeSplitting: bootChunks(resolve(__dirname, 'src-renderer/src/main.ts'), resolve(__dirname, 'src-renderer/src/start.ts')) },
      },
    },
  },
})
