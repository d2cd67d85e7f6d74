/**
 * The sandbox in a real browser: the built app's sandbox.html and realm
 * bundle, driven through createRealmHost on a test page served under a
 * sub-path.
 */
import { afterAll, describe, expect } from "vitest";
import { launchBrowser, waitFor } from "./harness";
import { appTest } from "./fixture";
import { BASE_PATH, startRealmTestContext, type RealmPage, type RealmTestContext } from "./fixtures/realmTestPage";

let context: RealmTestContext;
let realm: RealmPage;

const it = appTest();
it.beforeAll(async ({ browser }) => {
  context = await startRealmTestContext({ browser });
  realm = await context.open();
});

afterAll(async () => {
  await context?.close();
});

describe("realm", () => {
  it("starts from a sub-path deployment, loading only the app's own files", async () => {
    console.log(`realm ready ${realm.readyAt.toFixed(0)} ms after navigation start`);
    const files = context.server.requests.map((request) => request.url);
    expect(files).toContain(`${BASE_PATH}generated/realm.js`);
    expect(files).toContain(`${BASE_PATH}sandbox.html`);
    // Only the browser's own favicon probe goes outside the sub-path.
    expect(files.filter((url) => !url.startsWith(BASE_PATH) && url !== "/favicon.ico")).toEqual([]);
    expect(realm.requests.outside(context.server.url)).toEqual([]);
  });

  it("runs code and reports its events", async () => {
    const result = await realm.run("console.log('sum', 1 + 2)");
    expect(result.flushError).toBeUndefined();
    const types = result.events.map((event) => event.type);
    expect(types).toContain("statement-start");
    expect(types).toContain("statement-end");
    expect(types).toContain("block-done");
    expect(realm.output(result)).toBe("sum 3");
    expect(result.events.find((event) => event.type === "statement-end")).toMatchObject({ status: "done" });
  });

  it("keeps state across replies", async () => {
    await realm.run("var keep = 41");
    const result = await realm.run("console.log(keep + 1)");
    expect(realm.output(result)).toBe("42");
  });

  it("zod (kept out of the bundle's start-up) works as `z`, with English messages, and leaves no global behind", async () => {
    const result = await realm.run(
      "const Person = z.object({ name: z.string(), age: z.number() })\n" +
        'console.log(Person.parse({ name: "Ada", age: 36 }).name, Person.safeParse({ name: "Ada", age: "x" }).error.issues[0].message)\n' +
        'console.log(typeof LivemarkZod, typeof evaluateZod, Object.keys(z).includes("object"), z.ZodError === zod.ZodError)',
    );
    expect(result.flushError).toBeUndefined();
    expect(realm.output(result)).toBe(
      "Ada Invalid input: expected number, received string\nundefined undefined true true",
    );
  });

  it("reports runtime errors as data", async () => {
    const result = await realm.run("null.boom");
    const end = result.events.find((event) => event.type === "statement-end");
    expect(end).toMatchObject({ status: "error", error: { code: "runtime", name: "TypeError" } });
  });

  it("a malformed data fence rejects `done` only after the last valid value is kept (as the in-process realm does)", async () => {
    const logs = await realm.page.evaluate(async () => {
      const { host, events } = window.realmTest;
      const from = events.length;
      host.beginReply();
      host.sendBlock({ type: "block-start", index: 0, kind: "code", line: 1 });
      host.sendBlock({
        type: "block-delta",
        index: 0,
        text: 'const part = new StreamedData("part");\npart.done.catch(() => "rejected").then((r) => console.log(r, JSON.stringify(part.value)));\n',
      });
      host.sendBlock({ type: "block-end", index: 0, unterminated: false });
      host.sendBlock({ type: "block-start", index: 1, kind: "data", id: "part", line: 5 });
      for (const piece of ['[{"a": 1}, ', '{"a": 2},', "]\n"])
        host.sendBlock({ type: "block-delta", index: 1, text: piece });
      host.sendBlock({ type: "block-end", index: 1, unterminated: false });
      await host.flush(10_000);
      const deadline = performance.now() + 5_000;
      const logged = () => events.slice(from).filter((event) => event.type === "console");
      while (logged().length === 0 && performance.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      return logged().map((event) => (event.type === "console" ? event.text : ""));
    });
    expect(logs).toEqual(['rejected [{"a":1},{"a":2}]']);
  });

  it("lets a later `new StreamedData(id)` take the id over without an error (as the in-process realm does)", async () => {
    const result = await realm.run(
      'const sd1 = new StreamedData("rows");\nconst sd2 = new StreamedData("rows");\nconsole.log("after");\n',
    );
    expect(
      result.events.filter(
        (event) => event.type === "error" || (event.type === "statement-end" && event.status === "error"),
      ),
    ).toEqual([]);
    expect(realm.output(result)).toBe("after");
  });

  it("runs in a hidden iframe sandboxed without allow-same-origin, at an opaque origin", async () => {
    const attributes = await realm.page.evaluate(() => {
      const iframe = document.querySelector("iframe")!;
      return {
        sandbox: iframe.getAttribute("sandbox"),
        srcdoc: iframe.hasAttribute("srcdoc"),
        src: iframe.src,
        hidden: iframe.hidden,
      };
    });
    expect(attributes).toEqual({
      sandbox: "allow-scripts",
      srcdoc: false,
      src: `${context.server.url}sandbox.html`,
      hidden: true,
    });
    expect(await realm.sandboxFrame().evaluate(() => self.origin)).toBe("null");
    const result = await realm.run("console.log(self.origin, typeof document, location.protocol)");
    expect(realm.output(result)).toBe("null undefined blob:");
  });

  it("sandbox.html refuses to start at the app's origin", async () => {
    const page = await context.browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => void errors.push(error.message));
    // Top level, and framed without the sandbox attribute: both at the app's origin.
    await page.goto(context.server.url + "sandbox.html");
    await page.goto(context.server.url + "realm-test.html?unused");
    await page.evaluate((url) => {
      const frame = document.createElement("iframe");
      frame.src = url;
      document.body.append(frame);
      return new Promise((done) => frame.addEventListener("load", done));
    }, context.server.url + "sandbox.html");
    // Both documents refuse, each once.
    await expect
      .poll(() => errors.filter((message) => message.includes("refusing to start")).length, { timeout: 10_000 })
      .toBe(2);
    await page.close();
  });
});

describe("watchdog", () => {
  it("never stays stuck in a loop that swallows the loop guard's error", async () => {
    const from = await realm.start("while (true) { try { while (true) {} } catch {} }");
    // The loop guard rethrows until the loop yields, so the statement fails;
    // were it swallowed for good, the watchdog would reset the realm.
    const outcome = await realm.waitForEvent(
      (event) => event.type === "realm-reset" || (event.type === "statement-end" && event.status === "error"),
      from,
      10_000,
    );
    if (outcome.type === "statement-end") expect(outcome).toMatchObject({ error: { code: "loop-guard" } });
    else await realm.waitForEvent((event) => event.type === "ready", from, 10_000);
    expect(realm.output(await realm.run("console.log('responsive')"))).toBe("responsive");
  });

  it("resets a realm stuck in a loop the guard cannot see, and the fresh realm runs code", async () => {
    await realm.run("var before = 'old state'");
    // Code built at run time is not transformed, so it has no loop guard.
    const from = await realm.start("(0, eval)('while (true) { try { while (true) {} } catch {} }')");
    const started = await realm.waitForEvent((event) => event.type === "statement-start", from);
    const reset = await realm.waitForEvent((event) => event.type === "realm-reset", from, 10_000);
    const ready = await realm.waitForEvent((event) => event.type === "ready", from, 10_000);
    const detectMs = reset.at - started.at;
    const restartMs = ready.at - reset.at;
    console.log(
      `stuck loop: reset after ${detectMs.toFixed(0)} ms, fresh realm ready ${restartMs.toFixed(0)} ms after the kill`,
    );
    expect(reset).toMatchObject({
      reason: "unresponsive",
      running: { block: 0, statement: 0, source: expect.stringContaining("eval") },
    });
    expect(detectMs).toBeLessThan(6_000);
    const result = await realm.run("console.log(typeof before, 'alive')");
    expect(realm.output(result)).toBe("undefined alive");
  });

  it("does not reset a realm whose long computation progresses within the loop guard's budget", async () => {
    // 1.5 s of synchronous, guarded work: far past the host's busy limit for a
    // silent realm, but the loop guard's busy pulses say it is progressing.
    const from = (await realm.events()).length;
    const result = await realm.run(
      "let spins = 0; const until = Date.now() + 1_500; while (Date.now() < until) spins++; console.log('finished', spins > 0)",
      20_000,
    );
    expect(realm.output(result)).toBe("finished true");
    expect((await realm.events(from)).filter((event) => event.type === "realm-reset")).toEqual([]);
  });

  it("resets a realm stuck where no loop guard can see (catastrophic regex)", async () => {
    const from = await realm.start("/^(a+)+$/.test('a'.repeat(40) + 'b')");
    const reset = await realm.waitForEvent((event) => event.type === "realm-reset", from, 10_000);
    expect(reset).toMatchObject({ reason: "unresponsive", running: { source: expect.stringContaining("repeat") } });
    await realm.waitForEvent((event) => event.type === "ready", from, 10_000);
    expect(realm.output(await realm.run("console.log('back')"))).toBe("back");
  });

  it("rejects a pending flush with realm-reset so the caller can go on", async () => {
    const outcome = await realm.page.evaluate(async () => {
      const { host } = window.realmTest;
      window.realmTest.start("(0, eval)('for (;;) {}')");
      try {
        await host.flush(30_000);
        return "resolved";
      } catch (error) {
        return (error as { code?: string }).code;
      }
    });
    expect(outcome).toBe("realm-reset");
    await realm.page.evaluate(() => window.realmTest.host.ready());
  });

  it("abort() stops awaiting code without a reset", async () => {
    const from = await realm.start("console.log('waiting'); await sleep(60_000); console.log('never')");
    await realm.waitForEvent((event) => event.type === "console", from);
    const flushed = await realm.page.evaluate(async () => {
      const { host } = window.realmTest;
      const flush = host.flush(5_000);
      host.abort();
      await flush;
      return "flushed";
    });
    expect(flushed).toBe("flushed");
    const events = await realm.events(from);
    expect(events.find((event) => event.type === "statement-end" && event.statement === 1)).toMatchObject({
      status: "error",
      error: { code: "aborted" },
    });
    // The stop request was answered: no reset for not stopping can follow.
    await realm.page.waitForFunction(() => window.realmTest.host.activity?.().stopping === 0, null, {
      timeout: 10_000,
      polling: 20,
    });
    expect((await realm.events(from)).filter((event) => event.type === "realm-reset")).toEqual([]);
  });

  it("abort() resets a realm that does not stop within a second", async () => {
    const from = await realm.start("(0, eval)('while (true) {}')");
    await realm.waitForEvent((event) => event.type === "statement-start", from);
    const abortedAt = await realm.page.evaluate(() => {
      window.realmTest.host.abort();
      return performance.now();
    });
    const reset = await realm.waitForEvent((event) => event.type === "realm-reset", from, 10_000);
    console.log(`abort → reset in ${(reset.at - abortedAt).toFixed(0)} ms`);
    expect(reset.at - abortedAt).toBeLessThan(2_000);
    expect(reset).toMatchObject({ reason: "unresponsive" });
    await realm.waitForEvent((event) => event.type === "ready", from, 10_000);
  });

  it("reset() gives a fresh realm on request", async () => {
    await realm.run("var kept = 1");
    const from = (await realm.events()).length;
    await realm.page.evaluate(() => window.realmTest.host.reset("test"));
    const events = await realm.events(from);
    expect(events[0]).toMatchObject({ type: "realm-reset", reason: "requested", detail: "test" });
    expect(events.some((event) => event.type === "ready")).toBe(true);
    expect(realm.output(await realm.run("console.log(typeof kept)"))).toBe("undefined");
  });
});

describe("spare realm", () => {
  it("a reset swaps in the warm spare, so the fresh realm is ready at once", async () => {
    await waitFor(() => realm.page.evaluate(() => window.realmTest.host.status().spare === "ready"), 30_000, 100);
    await realm.run("var mark = 'before'");
    const startMs = await realm.page.evaluate(async () => {
      const { host, events } = window.realmTest;
      const from = events.length;
      await host.reset("swap");
      const ready = events.slice(from).find((event) => event.type === "ready");
      return ready?.type === "ready" ? ready.startMs : -1;
    });
    console.log(`reset with a warm spare: ready ${startMs.toFixed(1)} ms after the kill`);
    expect(startMs).toBeGreaterThanOrEqual(0);
    expect(startMs).toBeLessThan(250);
    expect(realm.output(await realm.run("console.log(typeof mark)"))).toBe("undefined");
  });

  it("without a spare, a reset boots a fresh realm and keeps only one iframe", async () => {
    const result = await realm.page.evaluate(async () => {
      const container = document.createElement("div");
      document.body.append(container);
      const host = window.realmTest.makeHarness({ spare: false, container }).host;
      await host.ready();
      const started = performance.now();
      await host.reset();
      const resetMs = performance.now() - started;
      // Nothing is still due to start (no spare is kept; the old frame is gone).
      while (host.activity?.().spareScheduled || host.status().realm !== "ready")
        await new Promise((done) => requestAnimationFrame(done));
      const frames = container.querySelectorAll("iframe").length;
      const status = host.status();
      host.dispose();
      return { resetMs, frames, status, afterDispose: container.querySelectorAll("iframe").length };
    });
    console.log(`reset without a spare: ${result.resetMs.toFixed(0)} ms`);
    expect(result.frames).toBe(1);
    expect(result.status).toEqual({ realm: "ready", spare: "none" });
    expect(result.afterDispose).toBe(0);
  });
});

describe("crash", () => {
  it("a realm that runs out of memory takes down only the sandbox: the app survives and gets a fresh realm", async () => {
    // A small heap so the realm runs out in well under the heartbeat timeout.
    const browser = await launchBrowser({ args: ["--js-flags=--max-old-space-size=96"] });
    const crashContext = await startRealmTestContext({ browser });
    try {
      const crashRealm = await crashContext.open();
      // Playwright marks the whole page crashed when any of its frames'
      // processes dies, so talk to the app page over its own CDP session.
      const session = await crashRealm.page.context().newCDPSession(crashRealm.page);
      const evaluate = async <T>(expression: string): Promise<T> =>
        (await session.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true })).result
          .value as T;
      const from = await crashRealm.start("const hoard = []; for (;;) hoard.push(new Array(1e5).fill(1.5));");
      const events = await waitFor(
        async () => {
          const list = await evaluate<{ type: string; reason?: string; at: number }[]>(
            `realmTest.events.slice(${from})`,
          );
          return list.some((event) => event.type === "ready") ? list : undefined;
        },
        45_000,
        200,
      );
      const reset = events!.find((event) => event.type === "realm-reset");
      expect(reset).toMatchObject({ reason: "crashed" });
      const output = await evaluate<string>(
        `realmTest.run("console.log('after the crash')").then((result) => result.events.filter((e) => e.type === "console").map((e) => e.text).join())`,
      );
      expect(output).toBe("after the crash");
    } finally {
      await crashContext.close().catch(() => {});
      await browser.close();
    }
  });
});
