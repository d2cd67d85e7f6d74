import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startBridge } from "./server";
import { proxyUrlProblem, runMcpProxy } from "./mcpProxy";
import { DEFAULT_BRIDGE_PORT } from "../src/wire/bridge";

/**
 * `npm run bridge -- [--port 4737] [--stdio] [--acp "<agent command>"] [--allow-origin https://example.test]…`, or the same program
 * bundled into one file (`node livemark-bridge.mjs …`, scripts/buildBridge.mjs).
 * Runs until SIGINT or SIGTERM, then closes every channel and exits 0.
 */

/**
 * Set only in the bundled file: "%%LIVEMARK_PAGE_ORIGIN%%" as built; the page's **Download bridge** writes
 * its own origin there, so the copy it hands out accepts the page it came from.
 */
declare const __LIVEMARK_PAGE_ORIGIN__: string | undefined;
const bundled = typeof __LIVEMARK_PAGE_ORIGIN__ === "string";
const embeddedOrigin = bundled && !__LIVEMARK_PAGE_ORIGIN__.startsWith("%%") ? __LIVEMARK_PAGE_ORIGIN__ : undefined;
const PROGRAM = bundled ? "node livemark-bridge.mjs" : "npm run bridge --";

const USAGE = `Usage: ${PROGRAM} [options]
  --port <n>            HTTP port on 127.0.0.1 (MCP at /mcp, the page at /page). Default ${DEFAULT_BRIDGE_PORT}; 0 picks a free one.
  --stdio               Also serve MCP on stdin/stdout (for clients that launch the bridge).
  --acp "<command>"     ACP mode: each page that connects to /acp drives the person's ACP agent, launched with
                        this command (e.g. "npx @zed-industries/claude-code-acp", "gemini --experimental-acp").
  --mcp-proxy <url>     Not for people: what an ACP agent without HTTP MCP launches to reach its link's Livemark
                        tools (stdio ↔ the given http://127.0.0.1:PORT/acp-mcp/<token>), from the page's mcpServers.
  --allow-origin <url>  Another origin whose Livemark page may connect (repeatable).
  --code-ttl-ms <n>     How long an unused channel code lives (default 600000, ten minutes).
  --resume-grace-ms <n> How long a channel whose page went away (a reload, a closed tab) waits for it (default 120000).
  --help                This text.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: "string" },
      stdio: { type: "boolean", default: false },
      acp: { type: "string" },
      "mcp-proxy": { type: "string" },
      "allow-origin": { type: "string", multiple: true, default: [] },
      "code-ttl-ms": { type: "string" },
      "resume-grace-ms": { type: "string" },
      help: { type: "boolean", default: false },
    },
    strict: true,
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.acp !== undefined && !values.acp.trim())
  fail('--acp needs the agent\'s command, e.g. --acp "gemini --experimental-acp"');
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (values["mcp-proxy"] !== undefined) {
  const problem = proxyUrlProblem(values["mcp-proxy"]);
  if (problem) fail(problem);
  await runMcpProxy(values["mcp-proxy"]);
  process.exit(0);
}
const port = values.port === undefined ? DEFAULT_BRIDGE_PORT : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got ${values.port}`);
const ttl = values["code-ttl-ms"] === undefined ? undefined : Number(values["code-ttl-ms"]);
if (ttl !== undefined && (!Number.isFinite(ttl) || ttl <= 0))
  fail(`--code-ttl-ms must be a positive number, got ${values["code-ttl-ms"]}`);
const grace = values["resume-grace-ms"] === undefined ? undefined : Number(values["resume-grace-ms"]);
if (grace !== undefined && (!Number.isFinite(grace) || grace <= 0))
  fail(`--resume-grace-ms must be a positive number, got ${values["resume-grace-ms"]}`);
const origins = [...(embeddedOrigin ? [embeddedOrigin] : []), ...(values["allow-origin"] ?? [])];
for (const origin of origins) {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    fail(`--allow-origin must be an origin such as http://localhost:8080, got ${origin}`);
  }
  if (parsed.origin !== origin.replace(/\/+$/, ""))
    fail(`--allow-origin must be an origin (scheme, host, port; no path), got ${origin}`);
}

// The signals are heard before the bridge starts (it says where it listens as it starts): a SIGTERM that
// follows that line at once still closes it cleanly, never the default exit by signal.
let stopping = false;
let bridge: Awaited<ReturnType<typeof startBridge>> | undefined;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`${signal}: closing channels and stopping.\n`);
  // Not started yet: it is closed as soon as it has started (below).
  if (bridge) void bridge.close().then(() => process.exit(0));
};
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));

bridge = await startBridge({
  port,
  stdio: values.stdio,
  acp: values.acp?.trim(),
  // How an agent launches this very program as its stdio MCP proxy (the same Node, loader flags and file).
  mcpProxy: { command: process.execPath, args: [...process.execArgv, resolve(process.argv[1])] },
  allowOrigins: origins,
  codeTtlMs: ttl,
  resumeGraceMs: grace,
}).catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  fail(
    code === "EADDRINUSE"
      ? `Port ${port} is in use: is a bridge already running? Pick another with --port.`
      : `The bridge could not start: ${String(error)}`,
  );
});
if (stopping) void bridge.close().then(() => process.exit(0));
// A client that launched the bridge over stdio and went away: nobody can use it any more.
if (values.stdio) process.stdin.once("end", () => stop("stdin closed"));
