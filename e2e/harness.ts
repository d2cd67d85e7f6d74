/**
 * Browser test harness: a headless Chromium, a tiny static server for the
 * built app (`dist/`), an "attacker" server that records every hit, and a
 * recorder of every request a page makes.
 *
 * Tests run against the BUILT app (`npm run build` first) so they see exactly
 * what ships, including sub-path deployment. Every server binds 127.0.0.1 on a
 * free port and must be closed by the test (afterAll).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type LaunchOptions, type Locator, type Page, type Request } from "playwright-core";

/** Repository root and the built app. */
export const ROOT_DIR = fileURLToPath(new URL("..", import.meta.url));
/** The built app; LIVEMARK_DIST_DIR points the tests at another build. */
export const DIST_DIR = process.env.LIVEMARK_DIST_DIR ? resolve(process.env.LIVEMARK_DIST_DIR) : join(ROOT_DIR, "dist");

/** The Chromium binary to drive: CHROMIUM_PATH, else the system one, else Playwright's own. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  return undefined;
}

/**
 * Launch headless Chromium. The flags keep the browser itself quiet on the
 * network (no component updates, sync or background fetches), so a request
 * log shows only what the page did.
 */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    ...options,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...(options.args ?? []),
    ],
  });
}

/** Throw a helpful error when the app has not been built. */
export function assertBuilt(dir: string = DIST_DIR): void {
  const realm = join(dir, "generated", "realm.js");
  if (!existsSync(join(dir, "index.html")) || !existsSync(realm) || statSync(realm).size === 0) {
    throw new Error(`${dir} is missing or incomplete: run \`npm run build\` before the browser tests`);
  }
}

export interface RecordedRequest {
  method: string;
  /** Path and query as received, e.g. `/sub/path/index.html?x=1`. */
  url: string;
  origin?: string;
  referer?: string;
  at: number;
}

export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Origin plus base path, always ending in `/`, e.g. `http://127.0.0.1:PORT/some/sub/path/`. */
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Forget the requests recorded so far. */
  clearRequests(): void;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".wasm": "application/wasm",
  ".txt": "text/plain; charset=utf-8",
};

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

async function listen(handler: Handler, basePath: string): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    requests.push({
      method: request.method ?? "GET",
      url: request.url ?? "",
      origin: header(request, "origin"),
      referer: header(request, "referer"),
      at: Date.now(),
    });
    try {
      handler(request, response);
    } catch (error) {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error));
    }
  });
  // Keep-alive sockets would hold close() open until they time out.
  server.keepAliveTimeout = 1;
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: origin + basePath,
    port,
    requests,
    clearRequests: () => void requests.splice(0),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function normaliseBasePath(basePath = "/"): string {
  let path = basePath.startsWith("/") ? basePath : "/" + basePath;
  if (!path.endsWith("/")) path += "/";
  return path;
}

export interface ServeStaticOptions {
  /** Serve `dir` under this sub-path (e.g. `/some/sub/path/`); anything outside it is a 404. */
  basePath?: string;
  /** Extra response headers for every file (e.g. a CSP header to test). */
  headers?: Record<string, string>;
  /** Extra response headers for the app's page only (`index.html`, also served for `…/`), as README "Hosting" sets them. */
  pageHeaders?: Record<string, string>;
  /** Extra files served from memory, by path relative to the base (e.g. `"realm-test.html"`). */
  files?: Record<string, string | { body: string; contentType: string }>;
}

/**
 * Serve a directory (by default the built app) over HTTP on 127.0.0.1.
 * GET/HEAD only; `…/` serves `index.html`; no directory listings; paths that
 * escape the directory are refused. Several directories overlay each other,
 * the first holding a file wins (e.g. a test page next to `dist/`).
 */
export async function serveStatic(
  dir: string | string[] = DIST_DIR,
  options: ServeStaticOptions = {},
): Promise<TestServer> {
  const roots = (Array.isArray(dir) ? dir : [dir]).map((each) => resolve(each));
  const basePath = normaliseBasePath(options.basePath);
  const extra = options.files ?? {};
  return listen((request, response) => {
    const method = request.method ?? "GET";
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    if (method !== "GET" && method !== "HEAD") return notFound(response, 405);
    if (!pathname.startsWith(basePath)) return notFound(response);
    let relative = pathname.slice(basePath.length);
    if (relative === "" || relative.endsWith("/")) relative += "index.html";
    const send = (body: Buffer | string, contentType: string) => {
      const page = relative === "index.html" ? options.pageHeaders : undefined;
      response.writeHead(200, {
        "content-type": contentType,
        "cache-control": "no-store",
        ...options.headers,
        ...page,
      });
      response.end(method === "HEAD" ? undefined : body);
    };
    const inMemory = extra[relative];
    if (inMemory !== undefined) {
      return typeof inMemory === "string"
        ? send(inMemory, CONTENT_TYPES[extname(relative)] ?? "application/octet-stream")
        : send(inMemory.body, inMemory.contentType);
    }
    for (const root of roots) {
      const file = normalize(join(root, relative));
      if (file !== root && !file.startsWith(root + sep)) return notFound(response, 403);
      if (existsSync(file) && statSync(file).isFile()) {
        return send(readFileSync(file), CONTENT_TYPES[extname(file)] ?? "application/octet-stream");
      }
    }
    notFound(response);
  }, basePath);
}

function notFound(response: ServerResponse, status = 404): void {
  response.writeHead(status, { "content-type": "text/plain" });
  response.end(String(status));
}

/**
 * A server standing in for an attacker's endpoint: records every hit and
 * answers permissively (CORS `*`, a script body that would set a flag), so a
 * request that gets through is both logged here and visible to the page.
 * Tests assert that `requests` stays empty.
 */
export async function serveRecorder(): Promise<TestServer> {
  return listen((request, response) => {
    const pathname = new URL(request.url ?? "/", "http://x").pathname;
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "*",
      "cache-control": "no-store",
    };
    if (pathname.endsWith(".js")) {
      response.writeHead(200, { "content-type": "text/javascript", ...cors });
      response.end("self.__leaked = (self.__leaked || 0) + 1;");
      return;
    }
    response.writeHead(200, { "content-type": "text/plain", ...cors });
    response.end("leaked");
  }, "/");
}

export interface PageRequestLog {
  /** Every URL the page (any frame, any worker) asked for, in order. */
  readonly urls: string[];
  readonly requests: Request[];
  /** URLs that are not under one of the allowed prefixes (`data:` and `blob:` always allowed). */
  outside(...allowedPrefixes: string[]): string[];
  /**
   * Like `outside`, but only requests that got a response: Playwright also
   * reports requests the browser then blocked (CSP, sandbox), which never
   * reached the network.
   */
  answeredOutside(...allowedPrefixes: string[]): Promise<string[]>;
  clear(): void;
  stop(): void;
}

/**
 * Record every request the page makes, including its frames and (as far as
 * Playwright reports them) dedicated workers, so tests can assert nothing left.
 * Use together with the servers' own logs: the servers are the ground truth.
 */
export function recordPageRequests(page: Page): PageRequestLog {
  const requests: Request[] = [];
  const onRequest = (request: Request) => void requests.push(request);
  page.on("request", onRequest);
  page.context().on("request", onRequest);
  // A request seen both by the page and the context is the same object.
  const unique = () => [...new Set(requests)];
  return {
    get urls() {
      return unique().map((request) => request.url());
    },
    get requests() {
      return unique();
    },
    outside(...allowedPrefixes) {
      return unique()
        .map((request) => request.url())
        .filter((url) => !url.startsWith("data:") && !url.startsWith("blob:"))
        .filter((url) => !allowedPrefixes.some((prefix) => url.startsWith(prefix)));
    },
    async answeredOutside(...allowedPrefixes) {
      const answered: string[] = [];
      for (const request of unique()) {
        const url = request.url();
        if (
          url.startsWith("data:") ||
          url.startsWith("blob:") ||
          allowedPrefixes.some((prefix) => url.startsWith(prefix))
        )
          continue;
        if (await request.response().catch(() => null)) answered.push(url);
      }
      return answered;
    },
    clear: () => void requests.splice(0),
    stop() {
      page.off("request", onRequest);
      page.context().off("request", onRequest);
    },
  };
}

/** Poll `condition` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(condition: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}

/**
 * Open the app and wait until its realm is ready and the person's sessions
 * are open (e2e/startup.test.ts covers what happens before). A load that is not ready in
 * time is logged with what the page printed and reloaded once; a second
 * failure fails the test. (The intermittent "realm never starts" was the
 * realm bundle's preload link; e2e/realmStart.test.ts now asserts 100 fresh
 * loads in a row.)
 */
export async function openReadyApp(page: Page, url: string, timeoutMs = 30_000): Promise<void> {
  const messages: string[] = [];
  const onConsole = (message: { type(): string; text(): string }) =>
    void messages.push(`${message.type()}: ${message.text()}`);
  page.on("console", onConsole);
  try {
    for (let attempt = 1; ; attempt += 1) {
      if (attempt === 1) await page.goto(url);
      else await page.reload();
      const status = page.locator(".lm-realm");
      const ready = await page
        .getByText("Sandbox ready")
        .waitFor({ timeout: timeoutMs })
        .then(() => true)
        .catch(() => false);
      // The person's sessions are open too (the composer works before; what a test counts or clicks next may not).
      if (ready) {
        await page
          .locator(".lm-empty", { hasText: "Opening your sessions…" })
          .waitFor({ state: "detached", timeout: timeoutMs });
        return;
      }
      const text = await status.textContent().catch(() => "(no status)");
      console.warn(
        `realm not ready after ${timeoutMs} ms (attempt ${attempt}): status "${text}"; page said:\n${messages.slice(-20).join("\n")}`,
      );
      if (attempt >= 2) throw new Error(`the app's realm never became ready: ${text}`);
    }
  } finally {
    page.off("console", onConsole);
  }
}

/** Point the app at an OpenAI-compatible endpoint through its Settings dialog, as a person would. */
export async function configureEndpoint(
  page: Page,
  baseURL: string,
  options: { apiKey?: string; model?: string } = {},
): Promise<void> {
  await page.getByRole("button", { name: "Settings", exact: true }).click();
  await page.getByLabel("OpenAI-compatible endpoint").check();
  await page.getByLabel("API key", { exact: true }).fill(options.apiKey ?? "test-key");
  await page.getByLabel("Base URL", { exact: true }).fill(baseURL);
  await page.getByLabel("Model", { exact: true }).fill(options.model ?? "mock-model");
  await page.getByRole("button", { name: "Save" }).click();
}

/**
 * A permission ask's buttons take clicks only once the ask has sat still for
 * 500 ms (src/ui/AskActions.tsx): wait for its signal, `data-armed="true"` on
 * the buttons' row, never a sleep. Returns the ask.
 */
export async function askArmed(ask: Locator, timeout = 30_000): Promise<Locator> {
  await ask.locator('.lm-ask__actions[data-armed="true"]').waitFor({ timeout });
  return ask;
}

/**
 * Answer a permission ask as a person would: wait until it is armed, press
 * the button; for **Always allow …**, then its **Confirm** step (armed anew).
 */
export async function answerAsk(
  ask: Locator,
  name: "Allow once" | "Deny" | "Always allow this host" | "Always allow this tool" | "Always allow for this session",
  timeout = 30_000,
): Promise<void> {
  await ask.getByRole("button", { name }).waitFor({ timeout });
  await (await askArmed(ask, timeout)).getByRole("button", { name }).click();
  if (!name.startsWith("Always")) return;
  await ask.getByRole("button", { name: "Confirm" }).waitFor({ timeout });
  await (await askArmed(ask, timeout)).getByRole("button", { name: "Confirm" }).click();
}
