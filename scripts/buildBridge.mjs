/**
 * `livemark-bridge.mjs` beside index.html in dist/: the bridge (bridge/main.ts,
 * the program `npm run bridge` runs) bundled into one self-contained ES module
 * for Node 20 or newer — no node_modules, nothing to install. esbuild comes
 * with vite. The Invite agent dialog offers it as **Download bridge**, with
 * the page's origin written into `PAGE_ORIGIN_MARK` so that copy accepts the
 * page it came from (src/ui/bridgeDownload.ts).
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { statSync } from "node:fs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, "dist", "livemark-bridge.mjs");

await build({
  entryPoints: [join(root, "bridge", "main.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: false,
  legalComments: "inline",
  // The CommonJS inside (ws, the MCP SDK's dependencies) requires Node's own modules.
  banner: {
    js: [
      "#!/usr/bin/env node",
      "// Livemark bridge: one file, no install. Run: node livemark-bridge.mjs (Node 20 or newer). --help lists the options.",
      'import { createRequire as __livemarkCreateRequire } from "node:module";',
      "const require = __livemarkCreateRequire(import.meta.url);",
      'if (Number(process.versions.node.split(".")[0]) < 20) { process.stderr.write(`The Livemark bridge needs Node.js 20 or newer (this is ${process.version}).\\n`); process.exit(1); }',
    ].join("\n"),
  },
  define: { __LIVEMARK_PAGE_ORIGIN__: JSON.stringify("%%LIVEMARK_PAGE_ORIGIN%%") },
  logLevel: "warning",
});
process.stdout.write(`dist/livemark-bridge.mjs ${(statSync(outfile).size / 1024).toFixed(0)} KB\n`);
