/**
 * The host renderer (src/render):
 * - `render.build5kMs`: apply the ops that build a 5,000-node mount (one batch).
 * - `render.update1Ms` vs `render.reloadNaiveMs`: change one text node in that
 *   mount by one op, against the naive path of reloading the whole snapshot
 *   (what a receiver without ops/versions would do on every change).
 * - `render.sanitize5kMs`: sanitize the props of all 5,000 nodes (a full
 *   first render's worth).
 * - `render.utilityCssFirstMs` / `render.utilityCssAddMs`: UnoCSS generator
 *   start plus 150 tokens, then 10 new tokens on top (regenerate the set).
 * - `render.opsToDomP95Ms`: in Chromium, one props op on a 2,000-node mount
 *   until the DOM shows it (the host's share of "click → DOM updated",
 *   budget ≤ 16 ms end to end).
 */
import { buildRenderTestPage } from "../e2e/fixtures/buildRenderTestPage";
import { launchBrowser, serveStatic } from "../e2e/harness";
import { specFor } from "../src/render/componentSpecs";
import { createMountStore } from "../src/render/mountStore";
import { sanitizeProps } from "../src/render/sanitizeProps";
import { createUtilityCssGenerator } from "../src/render/utilityCss";
import type { MountOp } from "../src/wire/mount";

function buildOps(count: number): MountOp[] {
  const ops: MountOp[] = [];
  let id = 1;
  const list = id++;
  ops.push({ op: "create", id: list, type: "div", props: { className: "space-y-2 p-4" } });
  while (id < count) {
    const row = id++;
    const text = id++;
    ops.push(
      {
        op: "create",
        id: row,
        type: "Card",
        props: { className: "flex items-center gap-2 p-2", onClick: { $handler: true } },
      },
      { op: "create", id: text, type: "#text", text: `row ${row}` },
      { op: "insert", parent: row, child: text },
      { op: "insert", parent: list, child: row },
    );
  }
  ops.push({ op: "insert", parent: 0, child: list });
  return ops;
}

function time(fn: () => void, repeat = 1): number {
  const start = performance.now();
  for (let index = 0; index < repeat; index++) fn();
  return (performance.now() - start) / repeat;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

async function browserLatency(): Promise<number> {
  const dir = await buildRenderTestPage();
  const [browser, server] = await Promise.all([launchBrowser(), serveStatic(dir)]);
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}render-test.html`);
    await page.waitForFunction(() => "renderTest" in window);
    const samples = await page.evaluate(
      async (ops) => {
        const api = (
          window as never as {
            renderTest: { receive(m: unknown): Promise<unknown>; registry: { receive(m: unknown): unknown } };
          }
        ).renderTest;
        await api.receive({ type: "mount", kind: "ops", mountId: "x", ops: [] }).catch(() => {});
        await api.receive({ type: "mount", kind: "open", mountId: "bench", snapshot: { nodes: [] } });
        await api.receive({ type: "mount", kind: "ops", mountId: "bench", ops });
        const text = document.evaluate("//*[text()='row 2']", document, null, XPathResult.FIRST_ORDERED_NODE_TYPE)
          .singleNodeValue as Element;
        const times: number[] = [];
        for (let index = 0; index < 60; index++) {
          const value = `row 2 · ${index}`;
          const start = performance.now();
          api.registry.receive({
            type: "mount",
            kind: "ops",
            mountId: "bench",
            ops: [{ op: "text", id: 3, text: value }],
          });
          while (text.textContent !== value) await new Promise<void>((resolve) => queueMicrotask(resolve));
          times.push(performance.now() - start);
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
        return times;
      },
      buildOps(2000) as unknown[],
    );
    samples.sort((a, b) => a - b);
    console.log(
      `ops → DOM (ms): median ${round(samples[samples.length >> 1])}, p95 ${round(samples[Math.floor(samples.length * 0.95)])}, max ${round(samples.at(-1)!)}`,
    );
    return samples[Math.floor(samples.length * 0.95)];
  } finally {
    await Promise.all([browser.close(), server.close()]);
  }
}

export async function run(): Promise<Record<string, number>> {
  const ops = buildOps(5000);
  let store = createMountStore({ mountId: "bench" });
  const build5kMs = time(() => {
    store = createMountStore({ mountId: "bench" });
    store.apply(ops);
  }, 5);
  const snapshot = store.toSnapshot();
  let counter = 0;
  const update1Ms = time(() => void store.apply([{ op: "text", id: 3, text: `changed ${counter++}` }]), 200);
  const reloadNaiveMs = time(() => void store.load(snapshot), 5);

  const nodes = [...Array(5000).keys()]
    .map((index) => store.getNode(index + 1))
    .filter((node) => node !== undefined && node.type !== "#text");
  const sanitize5kMs = time(() => {
    for (const node of nodes) sanitizeProps(specFor(node!.type)!, node!.props, { idPrefix: "lm-bench-" });
  }, 5);

  const tokens = new Set<string>();
  for (const prefix of ["p", "m", "px", "py", "mt", "mb", "gap", "w", "h"])
    for (const size of [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160]) tokens.add(`${prefix}-${size}`);
  const first = [...tokens].slice(0, 150);
  let start = performance.now();
  const generator = await createUtilityCssGenerator();
  await generator.generate(new Set(first));
  const utilityCssFirstMs = performance.now() - start;
  const more = new Set([
    ...first,
    "bg-red-500",
    "text-sm",
    "rounded-xl",
    "shadow-lg",
    "hover:bg-blue-600",
    "md:grid-cols-3",
    "grid",
    "flex",
    "items-center",
    "justify-between",
  ]);
  start = performance.now();
  await generator.generate(more);
  const utilityCssAddMs = performance.now() - start;

  console.log(
    `one op ${round(update1Ms)} ms vs reloading the snapshot ${round(reloadNaiveMs)} ms (${Math.round(reloadNaiveMs / update1Ms)}x)`,
  );
  const opsToDomP95Ms = await browserLatency();
  return {
    "render.build5kMs": round(build5kMs),
    "render.update1Ms": round(update1Ms),
    "render.reloadNaiveMs": round(reloadNaiveMs),
    "render.sanitize5kMs": round(sanitize5kMs),
    "render.utilityCssFirstMs": round(utilityCssFirstMs),
    "render.utilityCssAddMs": round(utilityCssAddMs),
    "render.opsToDomP95Ms": round(opsToDomP95Ms),
  };
}
