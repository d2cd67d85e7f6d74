/**
 * The installed app's sandbox (issue 13, "opens offline"): when the app's
 * service worker controls the page, the realm's document is
 * `sandbox.html?sw`, framed WITHOUT the sandbox attribute (Chromium never
 * routes an attribute-sandboxed frame through a service worker, so that one
 * cannot load offline) and sandboxed instead by the worker's header
 * `Content-Security-Policy: sandbox allow-scripts; <sandbox.html's policy>`.
 *
 * These tests hold that frame to the walls of e2e/security.test.ts: origin
 * "null", none of the app's storage, IndexedDB or caches, no network (CSP
 * connect-src 'none', in the realm worker and in a worker it starts), no top
 * navigation, no popups; and a sandbox document served without its header
 * never gets the bundle or the port (the page falls back to the attribute).
 * The app working offline end to end is in e2e/polish.test.ts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DIST_DIR, launchBrowser, openReadyApp, serveStatic, waitFor, type TestServer } from "./harness";
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

// The fixture's browser and attacker recorder, once for the file (the suites serve their own apps).
const it = appTest();
const suite = {} as { browser: Browser; attacker: TestServer };
it.beforeAll(({ browser, attacker }) => {
  Object.assign(suite, { browser, attacker });
});

const FAKE_KEY = "sk-test-LIVEMARK-FAKE-KEY-1234567890";

/** The app's sandbox iframes, as elements of the page (what the page framed, and how). */
function sandboxIframes(page: Page): Promise<Array<{ src: string; sandbox: string | null }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll("iframe")]
      .filter((frame) => frame.src.includes("/sandbox.html"))
      .map((frame) => ({ src: frame.src, sandbox: frame.getAttribute("sandbox") })),
  );
}

describe("the realm's document served by the service worker", () => {
  let context: RealmTestContext;
  let realm: RealmPage;

  beforeAll(async () => {
    context = await startRealmTestContext({ browser: suite.browser, serviceWorker: true });
    realm = await context.open();
    // The app's secrets, where the app keeps them.
    await plantSecrets(realm.page, FAKE_KEY);
    // Control: the attacker server records what reaches it.
    await checkRecorder(realm.page, suite.attacker);
  });

  afterEach(async () => {
    // Every request the page made has landed (or failed) before looking.
    await nextPaint(realm.page);
    await requestsSettled(realm.requests);
    expect(suite.attacker.requests.map((request) => request.url)).toEqual([]);
  });

  afterAll(async () => {
    await context?.close();
  });

  const attack = (code: string) => attackRealm(realm, code, FAKE_KEY);

  it('is framed without the sandbox attribute at sandbox.html?sw, and still runs at origin "null" (the worker\'s CSP header)', async () => {
    expect(await realm.page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(
      /\/realm-test-sw\.js$/,
    );
    const iframes = await sandboxIframes(realm.page);
    expect(iframes.length).toBeGreaterThan(0);
    for (const iframe of iframes) {
      expect(iframe.src).toMatch(/\/some\/sub\/path\/sandbox\.html\?sw$/);
      expect(iframe.sandbox).toBeNull();
    }
    expect(await realm.sandboxFrame().evaluate(() => self.origin)).toBe("null");
    // The realm worker too, and model code runs (eval is allowed there, under the realm's own policy).
    const result = await realm.run(`console.log("realm origin", self.origin, (0, eval)("6 * 7"))`);
    expect(realm.output(result)).toBe("realm origin null 42");
  });

  it("the realm cannot read the app's storage, IndexedDB, cookies or caches", async () => {
    const report = await attack(`${ATTEMPT}
      await attempt("indexedDB.open", () => new Promise((resolve, reject) => {
        const request = indexedDB.open("livemark-secrets");
        request.onsuccess = () => resolve("opened " + [...request.result.objectStoreNames]);
        request.onerror = () => reject(request.error);
      }));
      await attempt("indexedDB.databases", async () => { throw new Error(JSON.stringify(await indexedDB.databases())); });
      await attempt("localStorage", () => localStorage.getItem("livemark.settings.v1"));
      await attempt("document.cookie", () => document.cookie);
      await attempt("parent.document", () => parent.document.title);
      await attempt("caches", () => caches.keys());
      await attempt("cookieStore", () => cookieStore.getAll());
      console.log(JSON.stringify(report));
    `);
    expect(Object.keys(report)).toHaveLength(7);
    failed(report);
    // The opaque origin is why: storage throws SecurityError rather than being empty.
    expect(report["indexedDB.open"]).toMatch(/SecurityError/);
  });

  it("the sandbox document cannot read storage, IndexedDB, the parent or the app's caches", async () => {
    const report = await probeDocument(
      realm.sandboxFrame(),
      async ({ attempt }) => {
        await attempt("localStorage", () => localStorage.getItem("livemark.settings.v1"));
        await attempt("document.cookie", () => document.cookie);
        await attempt("indexedDB.open", () => indexedDB.open("livemark-secrets"));
        await attempt("caches", () => caches.keys());
        await attempt("parent.document", () => parent.document.title);
        await attempt("parent.localStorage", () => (parent as Window).localStorage.length);
        await attempt("top.location.href", () => top!.location.href);
        await attempt("service worker", () => navigator.serviceWorker.getRegistrations().then((all) => all.length));
      },
      undefined,
    );
    expect(Object.keys(report)).toHaveLength(8);
    failed(report);
    expect(JSON.stringify(report)).not.toContain("sk-test");
  });

  it("the sandbox document cannot navigate the top window, open popups, submit forms or reach the network", async () => {
    const pagesBefore = realm.page.context().pages().length;
    const appUrl = realm.page.url();
    const report = await probeDocument(
      realm.sandboxFrame(),
      async ({ attempt, argument: target }) => {
        await attempt("fetch", () => fetch(target + "doc-fetch"));
        await attempt("window.open", () => {
          if (window.open(target + "doc-popup")) return "opened";
          throw new Error("blocked");
        });
        await attempt("top navigation", () => {
          top!.location.href = target + "doc-top";
          return "navigated";
        });
        await attempt("form post", () => {
          const form = document.createElement("form");
          form.action = target + "doc-form";
          form.method = "post";
          document.body.append(form);
          form.submit();
          throw new Error("submitted (must not reach the server)");
        });
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
      },
      suite.attacker.url,
    );
    // What the attempts set off (a frame, a form post, a navigation) has been drawn and its requests answered.
    await nextPaint(realm.page);
    await requestsSettled(realm.requests);
    expect(Object.keys(report)).toHaveLength(5);
    failed(report);
    expect(realm.page.url()).toBe(appUrl);
    expect(realm.page.context().pages().length).toBe(pagesBefore);
  });

  it("nothing leaves the realm: its fetch is the capability broker's, and a worker it starts meets connect-src 'none'", async () => {
    const report = await attack(`${ATTEMPT}
      const target = ${JSON.stringify(suite.attacker.url)};
      await attempt("fetch", () => fetch(target + "fetch").then((response) => response.text()));
      ${nestedWorkerAttack(
        `const T = ${JSON.stringify(suite.attacker.url)}; const APP = ${JSON.stringify(context.server.url)};`,
        `
          await attempt("fetch", () => fetch(T + "nested-fetch").then((r) => r.text()));
          await attempt("fetch the app", () => fetch(new URL("index.html", APP).href).then((r) => r.text()));
          await attempt("XMLHttpRequest", () => new Promise((resolve) => {
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
          await attempt("importScripts", () => { importScripts(T + "nested.js"); return self.__leaked; });
      `,
      )}
      console.log(JSON.stringify(report));
    `);
    expect(report["nested worker"]).toBe("failed: Error: reported");
    expect(Object.keys(report)).toHaveLength(7);
    failed(report);
    expect(report.fetch).toMatch(/CapabilityError: network capability not granted/);
  });
});

describe("the installed app's sandbox", () => {
  /** Open the app with service workers allowed; once installed, reload so the worker controls it. */
  async function installed(
    url: string,
    before?: (context: BrowserContext) => Promise<unknown>,
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await suite.browser.newContext();
    await before?.(context);
    const page = await context.newPage();
    await openReadyApp(page, url);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.reload();
    await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
    return { context, page };
  }

  it("offline, the realm starts from the worker's sandbox document, at origin \"null\", away from the app's IndexedDB", async () => {
    const app = await serveStatic(DIST_DIR, { basePath: "/some/sub/path/" });
    const { context, page } = await installed(app.url);
    try {
      await context.setOffline(true);
      await page.reload();
      await page.getByText("Sandbox ready").waitFor({ timeout: 30_000 });
      const iframes = await sandboxIframes(page);
      expect(iframes.length).toBeGreaterThan(0);
      for (const iframe of iframes) {
        expect(iframe.src).toMatch(/\/sandbox\.html\?sw$/);
        expect(iframe.sandbox).toBeNull();
      }
      // The app's own database is there for the app, not for the sandbox.
      expect(await page.evaluate(() => indexedDB.databases().then((all) => all.length))).toBeGreaterThan(0);
      const frame = page.frames().find((each) => /\/sandbox\.html\?sw$/.test(each.url()))!;
      expect(await frame.evaluate(() => self.origin)).toBe("null");
      expect(
        await frame.evaluate(() =>
          indexedDB.databases().then(
            (all) => `listed ${all.length}`,
            (error: Error) => error.name,
          ),
        ),
      ).toBe("SecurityError");
    } finally {
      await context.close();
      await app.close();
    }
  });

  it("a sandbox document the worker serves without its sandbox header never receives the bundle or the port; the page falls back to the attribute", async () => {
    // A build whose worker lost the CSP sandbox directive (an outdated or broken worker).
    const copy = mkdtempSync(join(tmpdir(), "livemark-no-header-"));
    cpSync(DIST_DIR, copy, { recursive: true });
    const sw = join(copy, "sw.js");
    const original = readFileSync(sw, "utf8");
    const broken = original.replaceAll("sandbox allow-scripts", "x-not-sandbox allow-scripts");
    expect(broken).not.toBe(original);
    writeFileSync(sw, broken);
    const app = await serveStatic(copy, { basePath: "/some/sub/path/" });
    const { context, page } = await installed(app.url, (each) =>
      // In a sandbox document at the app's origin (only a header-less one is), note what reaches it, in the page.
      each.addInitScript(() => {
        if (!location.pathname.endsWith("/sandbox.html") || self.origin === "null" || window.parent === window) return;
        const host = window.parent as unknown as {
          __headerless?: { origins: string[]; messages: Array<{ type: unknown; ports: number; bundle: boolean }> };
        };
        const log = (host.__headerless ??= { origins: [], messages: [] });
        log.origins.push(self.origin);
        window.addEventListener(
          "message",
          (event) =>
            log.messages.push({
              type: (event.data as { type?: unknown } | null)?.type,
              ports: event.ports.length,
              bundle: (event.data as { bundle?: unknown } | null)?.bundle instanceof Blob,
            }),
          true,
        );
      }),
    );
    try {
      // installed() waited for "Sandbox ready" on the controlled page: the realm runs, through the fallback
      // (the spare realm's frame too, a moment later).
      await waitFor(async () => {
        const iframes = await sandboxIframes(page);
        return iframes.length > 0 && iframes.every((iframe) => iframe.sandbox === "allow-scripts");
      }, 30_000);
      const log = await page.evaluate(
        () => (window as unknown as { __headerless?: { origins: string[]; messages: unknown[] } }).__headerless,
      );
      // Not vacuous: the worker did serve sandbox.html?sw, without the header, at the app's origin.
      expect(log?.origins.length).toBeGreaterThan(0);
      expect(new Set(log!.origins)).toEqual(new Set([new URL(app.url).origin]));
      expect(log!.messages).toEqual([]);
      // The realm that runs is in the attribute-sandboxed frame, at origin "null".
      const iframes = await sandboxIframes(page);
      expect(iframes.length).toBeGreaterThan(0);
      for (const iframe of iframes) {
        expect(iframe.src).toMatch(/\/sandbox\.html$/);
        expect(iframe.sandbox).toBe("allow-scripts");
      }
      const frame = (await waitFor(() => page.frames().find((each) => /\/sandbox\.html$/.test(each.url())), 10_000))!;
      expect(await frame.evaluate(() => self.origin)).toBe("null");
    } finally {
      await context.close();
      await app.close();
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("the worker-served sandbox's own process", () => {
  it("a realm that runs out of memory takes down only the sandbox: the app survives and gets a fresh realm", async () => {
    // As e2e/sandbox.test.ts does for the attribute-sandboxed frame: a small heap, so the realm runs out quickly.
    const small = await launchBrowser({ args: ["--js-flags=--max-old-space-size=96"] });
    const crashContext = await startRealmTestContext({ browser: small, serviceWorker: true });
    try {
      const crashRealm = await crashContext.open();
      expect(
        (await sandboxIframes(crashRealm.page)).every(
          (iframe) => iframe.sandbox === null && iframe.src.endsWith("/sandbox.html?sw"),
        ),
      ).toBe(true);
      // Playwright marks the whole page crashed when any of its frames' processes dies: talk to the page over CDP.
      const session = await crashRealm.page.context().newCDPSession(crashRealm.page);
      const evaluate = async <T>(expression: string): Promise<T> =>
        (await session.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true })).result
          .value as T;
      const from = await crashRealm.start("const hoard = []; for (;;) hoard.push(new Array(1e5).fill(1.5));");
      const events = await waitFor(
        async () => {
          const list = await evaluate<{ type: string; reason?: string }[]>(`realmTest.events.slice(${from})`);
          return list.some((event) => event.type === "ready") ? list : undefined;
        },
        45_000,
        200,
      );
      expect(events!.find((event) => event.type === "realm-reset")).toMatchObject({ reason: "crashed" });
      const output = await evaluate<string>(
        `realmTest.run("console.log('after the crash')").then((result) => result.events.filter((e) => e.type === "console").map((e) => e.text).join())`,
      );
      expect(output).toBe("after the crash");
    } finally {
      await crashContext.close().catch(() => {});
      await small.close();
    }
  });
});
