import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig } from "vitest/config";

// The webview loads the built files from the app's own protocol; nothing is served at run time.
export default defineConfig({
  plugins: [svelte()],
  base: "./",
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari15",
    // One small bundle, and the highlighter (highlight.ts) as the one chunk loaded later, from
    // the same files; no inline data URLs for scripts.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
  // Component tests mount Svelte's browser build in jsdom.
  resolve: process.env.VITEST ? { conditions: ["browser"] } : undefined,
  test: {
    environment: "jsdom",
    include: ["tests/**/*.test.ts"],
    setupFiles: ["tests/support/settle-loads.ts"],
  },
});
