/**
 * The one browser-test fixture (vitest `test.extend`): every suite gets its
 * Chromium, the built app served, a mock LLM, a fresh browser context and
 * page per test, and the helpers the suites share (`send`, `statusText`,
 * `waitDone`, `FENCE`, `codeTurn`, and the probe waits `waitQuiet` /
 * `waitSaved`).
 *
 * ```ts
 * const it = appTest({ basePath: "/sub/", context: { acceptDownloads: true } });
 * it("…", async ({ page, mock }) => { … });
 * ```
 *
 * Per file (one each, closed after the file): `browser`, `app` (the built
 * app on 127.0.0.1, a free port), `attacker` (a recorder that must stay
 * unhit). Per test (closed after the test): `mock` (its own server, its own
 * port, its own queue and log), `context` (a new browser context), `page`
 * (opened in it, the app ready when `open` is not false, its endpoint set to
 * the mock when `configure` is set). Fixtures are lazy: a test that never
 * names one does not start it. Suites whose helpers are module-level read
 * them from `it.beforeEach(({ page, mock }) => …)`; a describe that needs
 * other context options (a phone's viewport) says
 * `it.override({ contextOptions: { … } })`.
 */
import { test as base, expect } from "vitest";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import {
  assertBuilt,
  configureEndpoint,
  DIST_DIR,
  launchBrowser,
  openReadyApp,
  serveRecorder,
  serveStatic,
  type PageRequestLog,
  type ServeStaticOptions,
  type TestServer,
} from "./harness";
import { startMockLlm, type MockLlm, type MockLlmOptions, type MockTurn } from "./mockLlm";
import { TEST_PROBE_FLAG, TEST_PROBE_GLOBAL, type TestProbe } from "../src/testProbe";

/** A Markdown code fence. */
export const FENCE = "```";

export interface AppTestOptions {
  /** How the built app is served (a sub-path, headers, extra files). */
  serve?: ServeStaticOptions;
  /** The mock LLM's options (its model list, …). */
  mock?: MockLlmOptions;
  /** Options for every test's browser context. */
  context?: BrowserContextOptions;
  /** Scripts run in every page of the context before the page's own. */
  initScripts?: (() => void)[];
  /** Open the app (ready, sessions open) in `page`; default true. */
  open?: boolean;
  /** Then point it at the mock LLM through Settings, with this key (`configure: true`: "test-key"). */
  configure?: boolean | { apiKey?: string; model?: string };
  /** Open the app with the test probe on (`?livemark-probe`, src/testProbe.ts), for `waitQuiet` and the like. */
  probe?: boolean;
}

/** The app's URL with the test probe's flag. */
export function probeUrl(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(TEST_PROBE_FLAG, "");
  return parsed.href;
}

export function appTest(options: AppTestOptions = {}) {
  return (
    base
      .extend("browser", { scope: "file" }, async ({}, { onCleanup }): Promise<Browser> => {
        assertBuilt();
        const browser = await launchBrowser();
        onCleanup(() => browser.close());
        return browser;
      })
      .extend("app", { scope: "file" }, async ({}, { onCleanup }): Promise<TestServer> => {
        const app = await serveStatic(DIST_DIR, options.serve);
        onCleanup(() => app.close());
        return app;
      })
      .extend("attacker", { scope: "file" }, async ({}, { onCleanup }): Promise<TestServer> => {
        const attacker = await serveRecorder();
        onCleanup(() => attacker.close());
        return attacker;
      })
      .extend("mock", async ({}, { onCleanup }): Promise<MockLlm> => {
        const mock = await startMockLlm(options.mock);
        onCleanup(() => mock.close());
        return mock;
      })
      // A value, so that a describe can say `it.override({ contextOptions: { viewport: … } })`.
      .extend("contextOptions", (options.context ?? {}) as BrowserContextOptions)
      .extend("context", async ({ browser, contextOptions }, { onCleanup }): Promise<BrowserContext> => {
        const context = await browser.newContext(contextOptions);
        for (const script of options.initScripts ?? []) await context.addInitScript(script);
        onCleanup(() => context.close());
        return context;
      })
      .extend("page", async ({ context, app, mock }): Promise<Page> => {
        const page = await context.newPage();
        if (options.open === false) return page;
        await openReadyApp(page, options.probe ? probeUrl(app.url) : app.url);
        if (options.configure)
          await configureEndpoint(page, mock.url, options.configure === true ? {} : options.configure);
        return page;
      })
  );
}

/** Type a message into the composer and send it, as a person does. */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

/** The status line's text. */
export function statusText(page: Page): Promise<string | null> {
  return page.getByRole("status").textContent();
}

/** Wait until the status line says the reply is done. */
export async function waitDone(page: Page, timeout = 30_000): Promise<void> {
  await expect.poll(() => statusText(page), { timeout }).toMatch(/^Done/);
}

/** A reply that says `text`, then runs `code` in one fence (`lang` `ts` or `tsx`). */
export function codeTurn(code: string, text = "Running it.", lang: "ts" | "tsx" = "ts"): MockTurn {
  return { chunks: [`${text}\n\n`, `${FENCE}${lang} agent.run\n`, code, `\n${FENCE}\n`] };
}

/** Read the test probe (the page must have been opened with `probeUrl`). */
export function readProbe(page: Page): Promise<TestProbe> {
  return page.evaluate((name) => {
    const probe = (window as unknown as Record<string, TestProbe | undefined>)[name];
    if (!probe) throw new Error("no test probe on this page: open it with probeUrl()");
    return {
      ...Object.fromEntries(Object.keys(probe).map((key) => [key, probe[key as keyof TestProbe]])),
    } as unknown as TestProbe;
  }, TEST_PROBE_GLOBAL);
}

/**
 * Wait until nothing is under way in the app: no change left to write, no
 * mount message queued, no statement running or flush unsettled, no restore
 * queued (src/testProbe.ts). Polls the page, never sleeps a fixed time.
 */
export async function waitQuiet(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (name) => (window as unknown as Record<string, TestProbe | undefined>)[name]?.quiet === true,
    TEST_PROBE_GLOBAL,
    {
      timeout,
      polling: 20,
    },
  );
}

/** Wait until every change of the open session is on disk (and no write is under way). */
export async function waitSaved(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (name) => (window as unknown as Record<string, TestProbe | undefined>)[name]?.writesPending === 0,
    TEST_PROBE_GLOBAL,
    {
      timeout,
      polling: 20,
    },
  );
}

/** Wait until every app data write (`storage.set`/`delete`) the host received is committed (`probe: true` pages). */
export async function waitAppDataSaved(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (name) => (window as unknown as Record<string, TestProbe | undefined>)[name]?.appDataPending === 0,
    TEST_PROBE_GLOBAL,
    { timeout, polling: 20 },
  );
}

/** Wait until every mount message the realm sent has been applied or refused (the inbox is empty). */
export async function waitInboxEmpty(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (name) => (window as unknown as Record<string, TestProbe | undefined>)[name]?.inboxPending === 0,
    TEST_PROBE_GLOBAL,
    {
      timeout,
      polling: 20,
    },
  );
}

/** Two animation frames: whatever the last change drew has been laid out and painted. */
export async function nextPaint(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}

/**
 * Wait until every request the page has made so far (its frames and workers,
 * as far as Playwright reports them) was answered or failed: a request that
 * reached a server is in that server's log by now. The barrier before a
 * "nothing reached the attacker" check.
 */
export async function requestsSettled(log: PageRequestLog): Promise<void> {
  await Promise.all(log.requests.map((request) => request.response().catch(() => null)));
}

/**
 * Wait until no finite animation or transition is running (a theme switch's
 * colour transitions, a panel opening), then for a paint: what the page
 * shows has stopped moving. Endless ones (spinners) are not waited for.
 */
export async function animationsDone(page: Page, timeout = 10_000): Promise<void> {
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (animation) => animation.playState !== "running" || animation.effect?.getTiming().iterations === Infinity,
        ),
    null,
    { timeout, polling: "raf" },
  );
  await nextPaint(page);
}
