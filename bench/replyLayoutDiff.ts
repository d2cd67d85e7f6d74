/**
 * A tool, not a bench: streams one reply (REPLY, or a sample with headings,
 * lists, a table, a quote and fences) into two builds given as arguments and
 * compares the position and height of the reply's blocks (inside their
 * groups, src/ui/replyGroups.ts) and their children; a CSS change meant to keep the layout prints "differences: 0".
 *   npx tsx bench/replyLayoutDiff.ts distA distB
 */
import { configureEndpoint, launchBrowser, openReadyApp, serveStatic } from "../e2e/harness";
import { startMockLlm } from "../e2e/mockLlm";
const REPLY =
  process.env.REPLY ??
  "# Heading first\n\nSome prose with a [link](https://example.com) and `code`.\n\n- one\n- two\n\n1. loose\n\n2. list\n\n```tsx agent.run\nconst a = 1\nconsole.log(a)\n```\n\n## Part 2\n\nText after code.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n> quote\n\n```ts\nconst x: number = 1\n```\n\n```tsx agent.run\nconst b = 2\n```\n\nLast paragraph.\n";
const out: Record<string, string[]> = {};
for (const dir of process.argv.slice(2)) {
  const [browser, app] = await Promise.all([launchBrowser(), serveStatic(dir)]);
  const mock = await startMockLlm();
  const page = await browser.newPage();
  mock.enqueue({ chunks: [REPLY] });
  await openReadyApp(page, app.url);
  await configureEndpoint(page, mock.url, { apiKey: "x" });
  await page.getByRole("textbox", { name: "Message" }).fill("go");
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  await page.waitForFunction(
    () => /^Done/.test(document.querySelector('[role="status"]')?.textContent ?? ""),
    undefined,
    { timeout: 60000 },
  );
  await page.waitForTimeout(1500);
  out[dir] = (await page.evaluate(
    `(() => { const a = document.querySelector('article[aria-label="Reply"]'); const top = a.getBoundingClientRect().top; return [...a.querySelectorAll(":scope > :not(.lm-reply-group), .lm-reply-group > *, .lm-markdown > *, li, .lm-markdown > * > *")].map((e) => e.tagName + "." + e.className.split(" ")[0] + " " + Math.round((e.getBoundingClientRect().top - top) * 10) / 10 + " h" + Math.round(e.getBoundingClientRect().height)); })()`,
  )) as string[];
  await browser.close();
  await app.close();
  await mock.close();
}
const [a, b] = Object.values(out);
console.log(`elements ${a.length} vs ${b.length}`);
let diffs = 0;
for (let i = 0; i < Math.max(a.length, b.length); i++)
  if (a[i] !== b[i]) {
    if (diffs++ < 40) console.log(i, a[i], "|", b[i]);
  }
console.log(`differences: ${diffs}`);
