/**
 * Host memory in Chromium (heap of the app's page, after garbage collection
 * through CDP `HeapProfiler.collectGarbage`, read with `Runtime.getHeapUsage`):
 * - `memory.heapAfter500MessagesMB` (budget ≤ 150): the app after importing
 *   and opening a session of 500 messages with 50 mount snapshots (the same
 *   session as store.bench, exported in Node and imported through the
 *   sidebar's "Import session", which opens it), once the last message shows.
 * - `memory.realmResetLeakKB` (budget ≤ 500): growth of the realm test page's
 *   heap over 20 realm resets (each with the warm spare in place, as in
 *   realm.bench), after GC, compared with the heap after 2 warm-up resets.
 *   The realm's own memory lives in the sandbox iframe's worker and is not
 *   the host's; what a reset must not leave behind is host state.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IDBKeyRange } from "fake-indexeddb";
import type { CDPSession, Page } from "playwright-core";
import { launchBrowser, openReadyApp, serveStatic } from "../e2e/harness";
import { startRealmTestContext } from "../e2e/fixtures/realmTestPage";
import { exportSession, serializeExport } from "../src/store/exportImport";
import { createSession, saveMessages, saveMounts } from "../src/store/sessions";
import { openStore } from "../src/store/store";
import { sampleSnapshot, testStoreOptions } from "../src/store/testSupport";
import { realisticConversation } from "./store.bench";

const RESETS = 20;

async function sessionExport(): Promise<string> {
  const opened = await openStore(testStoreOptions({ IDBKeyRange }));
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.store;
  const session = await createSession(store, { title: "Memory benchmark session" });
  await saveMessages(store, session.id, realisticConversation(500));
  await saveMounts(
    store,
    session.id,
    Array.from({ length: 50 }, (_, index) => ({
      mountId: `mount-${index}`,
      messageId: `m${index * 10 + 1}`,
      snapshot: sampleSnapshot(index),
    })),
  );
  const text = serializeExport(await exportSession(store, session.id));
  store.db.close();
  return text;
}

async function heapAfterGc(cdp: CDPSession, page: Page): Promise<number> {
  for (let round = 0; round < 3; round += 1) {
    await cdp.send("HeapProfiler.collectGarbage");
    await page.waitForTimeout(200);
  }
  return (await cdp.send("Runtime.getHeapUsage")).usedSize;
}

export async function run(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  const dir = mkdtempSync(join(tmpdir(), "livemark-memory-"));
  const file = join(dir, "session.json");
  writeFileSync(file, await sessionExport());

  const [browser, app] = await Promise.all([launchBrowser(), serveStatic()]);
  try {
    const page = await browser.newPage();
    await openReadyApp(page, app.url);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("HeapProfiler.enable");
    const empty = await heapAfterGc(cdp, page);
    await page.locator('input[type="file"][accept*="json"]').setInputFiles(file);
    await page.getByText("Question 498:", { exact: false }).first().waitFor({ timeout: 120_000 });
    await page.waitForTimeout(1000);
    const loaded = await heapAfterGc(cdp, page);
    results["memory.heapAfter500MessagesMB"] = Math.round((loaded / 1024 / 1024) * 10) / 10;
    console.log(
      `host heap after opening 500 messages / 50 mounts: ${results["memory.heapAfter500MessagesMB"]} MB (budget 150; the app with no session: ${(empty / 1024 / 1024).toFixed(1)} MB)`,
    );
  } finally {
    await app.close();
  }

  const context = await startRealmTestContext({ browser });
  try {
    const realm = await context.open();
    const cdp = await realm.page.context().newCDPSession(realm.page);
    await cdp.send("HeapProfiler.enable");
    // A string, not a function: the TypeScript runner would inject helpers (`__name`) the page lacks.
    const resets = (count: number) =>
      realm.page.evaluate(`(async () => {
        const { host } = window.realmTest;
        for (let index = 0; index <= ${count}; index += 1) {
          while (host.status().spare !== "ready") await new Promise((done) => setTimeout(done, 50));
          if (index === ${count}) break;
          await host.reset("bench");
          await host.ready();
        }
      })()`);
    await realm.run("const warm = 1");
    await resets(2);
    const before = await heapAfterGc(cdp, realm.page);
    await resets(RESETS);
    const after = await heapAfterGc(cdp, realm.page);
    results["memory.realmResetLeakKB"] = Math.round((after - before) / 1024);
    console.log(
      `host heap growth over ${RESETS} realm resets: ${results["memory.realmResetLeakKB"]} KB (budget 500; ${(before / 1024 / 1024).toFixed(1)} → ${(after / 1024 / 1024).toFixed(1)} MB)`,
    );
  } finally {
    await context.close();
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
