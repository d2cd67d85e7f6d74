import { defineConfig } from "vite";

// The app is a static site: relative base so `dist/` works from any host and
// any sub-path. The realm bundle is built separately (vite.realm.config.ts)
// into public/generated/ because it runs inside the sandbox worker, never in
// the app's own module graph.
export default defineConfig({
  base: "./",
  build: {
    target: "es2022",
    sourcemap: false,
  },
  server: { host: "127.0.0.1" },
});
