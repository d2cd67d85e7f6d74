import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

// The realm runs in a classic Worker started from a blob URL inside the
// opaque-origin sandbox (module workers fail there in Chromium), so it is one
// self-contained IIFE with Babel inside.
export default defineConfig({
  publicDir: false,
  build: {
    target: "es2022",
    outDir: "public/generated",
    emptyOutDir: true,
    minify: true,
    lib: {
      entry: fileURLToPath(new URL("./workers/realm/index.ts", import.meta.url)),
      formats: ["iife"],
      name: "LivemarkRealm",
      fileName: () => "realm.js",
    },
  },
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
