/**
 * The app in a real browser:
 * - `app.initialJsGzipKB`: gzipped size of the JavaScript index.html loads
 *   before anything is lazy-loaded (budget ≤ 300; Babel and the realm load in
 *   the sandbox and are not counted here, they are printed separately).
 * - `host.longestTaskMs`: the longest main-thread task (PerformanceObserver
 *   "longtask", plus a rAF gap probe) while a 20k-token reply with code blocks
 *   streams from a mock OpenAI-compatible server at 200 tokens/s (budget ≤ 50).
 * - `system.promptTokens`: the system prompt's size, estimated.
 */
import { execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DIST_DIR, ROOT_DIR, configureEndpoint, launchBrowser, openReadyApp, serveStatic } from "../e2e/harness";
import { startMockLlm, type MockChunk } from "../e2e/mockLlm";
import { SYSTEM_PROMPT, estimateTokens } from "../src/llm";

function ensureBuilt() {
  if (!existsSync(join(DIST_DIR, "index.html")) || !existsSync(join(DIST_DIR, "generated", "realm.js"))) {
    execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  }
}

function gzipKB(file: string): number {
  return gzipSync(readFileSync(file), { level: 9 }).length / 1024;
}

/** Scripts and module preloads referenced by index.html: what the browser fetches before first paint. */
function initialJs(): { files: string[]; kb: number } {
  const html = readFileSync(join(DIST_DIR, "index.html"), "utf8");
  // Scripts the app runs and module preloads; the realm bundle is fetched by
  // the realm host for the sandbox and never runs in the app: not counted.
  const scripts = [...html.matchAll(/<script[^>]*\ssrc="\.?\/?([^"]+\.js)"/g)].map((match) => match[1]);
  const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="\.?\/?([^"]+\.js)"/g)].map((match) => match[1]);
  const files = [...scripts, ...preloads].map((file) => join(DIST_DIR, file));
  return { files, kb: files.reduce((sum, file) => sum + gzipKB(file), 0) };
}

/** About 20k tokens of a realistic reply: prose, lists, code blocks that run, ordinary fences. */
function longReply(): string[] {
  const tokens: string[] = [];
  const add = (text: string) => {
    // ~4 characters per token, cut at word boundaries like a tokenizer would.
    for (const piece of text.match(/\s*\S{1,6}|\s+/g) ?? []) tokens.push(piece);
  };
  let section = 0;
  while (tokens.length < 20_000) {
    section += 1;
    add(`\n\n## Part ${section}\n\nHere we look at the numbers from a slightly different angle, keeping the earlier results in mind. `);
    add("Each statement below runs as soon as it has streamed in, so the totals show up while I keep writing. ".repeat(3));
    add(`\n\n- first point about part ${section}\n- a second point, with **bold** and \`code\`\n- a third one\n\n`);
    add("```tsx agent.run\n");
    add(`const rows${section} = Array.from({ length: 50 }, (_, i) => ({ id: i, value: (i * ${section}) % 17 }))\n`);
    add(`const total${section} = rows${section}.reduce((sum, row) => sum + row.value, 0)\n`);
    add(`if (${section} % 10 === 0) console.log("part ${section} total", total${section})\n`);
    add("```\n\n");
    add("For reference, this is how one would write it in plain TypeScript (not run):\n\n```ts\nconst x: number = 1\n```\n\n");
  }
  return tokens.slice(0, 20_000);
}

export async function run(): Promise<Record<string, number>> {
  ensureBuilt();
  const results: Record<string, number> = {};

  const initial = initialJs();
  results["app.initialJsGzipKB"] = Math.round(initial.kb * 10) / 10;
  console.log(`initial JS: ${initial.files.map((file) => file.slice(DIST_DIR.length + 1)).join(", ")}`);
  const realm = join(DIST_DIR, "generated", "realm.js");
  if (existsSync(realm)) console.log(`realm bundle (loaded inside the sandbox, not counted): ${gzipKB(realm).toFixed(1)} KB gzipped`);

  results["system.promptTokens"] = estimateTokens(SYSTEM_PROMPT);

  const tokens = longReply();
  const chunks: MockChunk[] = [];
  // 200 tokens/s: 10 tokens every 50 ms.
  for (let at = 0; at < tokens.length; at += 10) {
    chunks.push(tokens.slice(at, at + 10).join(""));
    chunks.push({ pauseMs: 50 });
  }
  const [browser, app, mock] = await Promise.all([launchBrowser(), serveStatic(), startMockLlm()]);
  try {
    mock.enqueue({ chunks });
    mock.enqueue({ chunks: ["Done."] });
    const page = await browser.newPage();
    await page.addInitScript(() => {
      const probe = ((globalThis as unknown as { __longest: { task: number; gap: number } }).__longest = { task: 0, gap: 0 });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) probe.task = Math.max(probe.task, entry.duration);
      }).observe({ type: "longtask", buffered: false });
      let last = performance.now();
      const frame = () => {
        const now = performance.now();
        probe.gap = Math.max(probe.gap, now - last);
        last = now;
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    await openReadyApp(page, app.url);
    await configureEndpoint(page, mock.url, { apiKey: "bench" });
    // Measure only the streaming, not the page load.
    await page.evaluate(() => {
      const probe = (globalThis as unknown as { __longest: { task: number; gap: number } }).__longest;
      probe.task = 0;
      probe.gap = 0;
    });
    const started = Date.now();
    await page.getByRole("textbox", { name: "Message" }).fill("Write the long report.");
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    await page.waitForFunction(() => /^Done|^Error|^Stopped/.test(document.querySelector('[role="status"]')?.textContent ?? ""), undefined, {
      timeout: 300_000,
      polling: 500,
    });
    const seconds = (Date.now() - started) / 1000;
    const probe = await page.evaluate(() => (globalThis as unknown as { __longest: { task: number; gap: number } }).__longest);
    // Long tasks are only reported above 50 ms; with none, the longest gap
    // between animation frames bounds the longest task from above.
    results["host.longestTaskMs"] = Math.round(probe.task > 0 ? probe.task : probe.gap);
    console.log(
      `20k-token reply streamed in ${seconds.toFixed(1)} s; longest task ${probe.task.toFixed(0)} ms (0 = none over 50 ms); longest frame gap ${probe.gap.toFixed(0)} ms`,
    );
    console.log(`status: ${await page.getByRole("status").textContent()}`);
  } finally {
    await Promise.all([browser.close(), app.close(), mock.close()]);
  }
  console.log(`system prompt ≈ ${results["system.promptTokens"]} tokens`);
  return results;
}
