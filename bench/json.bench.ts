/**
 * Partial JSON (DESIGN.md §5: a 68 KB data fence in 4-char chunks ≤ 30 ms
 * total, no flicker of partial numbers), through the realm's StreamedData
 * path: createUiGlobals → openDataTarget → push → jsonriver → `sd.value`
 * snapshots. Rendering is excluded (no mount reads the data).
 *
 * Figures: the median of MEASURED_RUNS (budgets are held on medians; the
 * best is printed alongside, and kept as json.partial68KBBestMs). The
 * production figure's runs are measured in a loop of their own, after the
 * warm-ups: not interleaved with the other variants, whose garbage would be
 * collected during them. Its reference, the naive re-parse, is measured in
 * the same loop (after every REFERENCE_EVERY-th production run).
 * - json.partial68KBMs (budget ≤ 10 ms): what a person's stream costs on the
 *   production path — the realm's StreamedData with its default frame
 *   scheduler handing deltas to the parser (see `production` below), one
 *   4-char delta per ms (1,000 tok/s) on a virtual clock, `sd.value` read
 *   once per frame. json.partial68KBMedianMs is the same figure (the old key).
 * - json.partial68KBPerChunkHandOverMs (the old json.partial68KBMs): every
 *   4-char chunk is handed to the parser and
 *   parsed before the next arrives (each chunk its own task: the most
 *   hand-overs possible), `sd.value` read once per FRAME_CHUNKS chunks (mounts
 *   read it once per frame; 16 chunks per frame ≈ a fast 1000 chunks/s
 *   stream). jsonriver alone with one hand-over per chunk is printed as
 *   json.jsonriverPerChunk68KBMs: its promise hops are most of the cost.
 * - json.partial68KBValueEveryChunkMs: the same, `sd.value` read after every
 *   chunk (each snapshot copies the spine: the root array of up to 500 rows).
 * - json.partial68KBBatchedMs: the production hand-over: deltas queue and
 *   the parser takes them in one go when its wake timer fires; modelled as
 *   bursts of FRAME_CHUNKS chunks, `sd.value` read once per burst.
 * - json.reparsePrefix68KBMs (reference): `parsePartialJson` from the `ai`
 *   package (repair + JSON.parse of the whole prefix) after every chunk.
 *   Quadratic, so it runs on every REFERENCE_STRIDE-th chunk and the total
 *   is extrapolated.
 */
import { parsePartialJson } from "ai";
import { parse } from "jsonriver";
import { createUiGlobals } from "../workers/realm/runtime/ui/createUiGlobals";
import { createFrameScheduler } from "../workers/realm/runtime/ui/scheduleFrame";
import { streamDrained, streamIdle } from "../workers/realm/runtime/ui/StreamedData";
import { MOUNT_FRAME_MS } from "../src/wire/mount";
import { median } from "./budgets";

const CHUNK_SIZE = 4;
const FRAME_CHUNKS = 16;
const WARM_UP_RUNS = 5;
const MEASURED_RUNS = 15;
const REFERENCE_STRIDE = 40;
/** The naive reference runs after every REFERENCE_EVERY-th production run (3 of 15). */
const REFERENCE_EVERY = 5;
/** The production figure's stream: one 4-char delta per millisecond (a 1,000 tok/s model, the slow end of the fastest hosted ones). */
const CHUNK_INTERVAL_MS = 1;

const REGIONS = ["north", "south", "east", "west"];

/** ~68 KB: 500 rows as a model would stream them (pretty-printed, two-space indent). */
export function makeFence(): string {
  const rows = Array.from({ length: 500 }, (_, index) => ({
    id: index + 1,
    customer: `Customer ${String(index + 1).padStart(3, "0")}`,
    region: REGIONS[index % REGIONS.length],
    revenue: Math.round(((index * 7919) % 100_000) * 1.37) / 100,
    units: (index * 31) % 977,
    active: index % 3 !== 0,
  }));
  return JSON.stringify(rows, null, 2);
}

export function chunksOf(text: string): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += CHUNK_SIZE) chunks.push(text.slice(index, index + CHUNK_SIZE));
  return chunks;
}

const best = (values: number[]): number => Math.min(...values);
const round = (value: number): number => Math.round(value * 100) / 100;

interface StreamTarget {
  value: unknown;
}

function setup(id: string, scheduleParse?: (wake: () => void) => void) {
  const ui = createUiGlobals({ post: () => {}, onError: () => {}, schedule: () => {}, scheduleParse });
  const StreamedData = ui.globals.StreamedData as new (id: string) => StreamTarget;
  const target = new StreamedData(id);
  return { ui, target };
}

/** Every chunk parsed on its own; the value read every `readEvery` chunks. Checks the final value. */
async function perChunk(chunks: string[], expected: unknown, readEvery: number): Promise<number> {
  const { ui, target } = setup("rows");
  const started = performance.now();
  const sink = ui.openDataTarget("rows")!;
  for (let index = 0; index < chunks.length; index += 1) {
    sink.push(chunks[index]);
    await streamIdle(target);
    if (index % readEvery === readEvery - 1) void target.value;
  }
  const error = sink.end(false);
  const elapsed = performance.now() - started;
  if (error) throw new Error(`bench fence failed: ${error.message}`);
  if (JSON.stringify(target.value) !== JSON.stringify(expected)) throw new Error("bench fence: wrong final value");
  return elapsed;
}

/**
 * A virtual clock for the realm's own frame scheduler: `advance` runs the
 * timers whose time came, as the worker's event loop would.
 */
function virtualClock() {
  let now = 0;
  let timers: { at: number; callback: () => void }[] = [];
  /** The earliest timer's time: most deltas find nothing due, and the clock must cost (and allocate) next to nothing then. */
  let earliest = Infinity;
  return {
    now: () => now,
    setTimer(callback: () => void, ms: number): void {
      timers.push({ at: now + ms, callback });
      if (now + ms < earliest) earliest = now + ms;
    },
    pending: () => timers.length > 0,
    advance(to: number): void {
      now = to;
      if (now < earliest) return;
      const due = timers.filter((timer) => timer.at <= now);
      timers = timers.filter((timer) => timer.at > now);
      earliest = Infinity;
      for (const timer of timers) earliest = Math.min(earliest, timer.at);
      for (const timer of due) timer.callback();
    },
  };
}

/**
 * The production path at a model's pace: createUiGlobals' StreamedData with
 * the realm's frame scheduler (createFrameScheduler, the default) handing
 * deltas to the parser — the first at once, then at most once per
 * MOUNT_FRAME_MS — one delta per CHUNK_INTERVAL_MS on a virtual clock, each
 * in its own "task": whenever a hand-over happened, the parser finishes it
 * before the next delta (microtasks drain between worker messages); `sd.value`
 * read once per frame as a mount does. The figure is the wall time of the
 * whole fence: every hand-over, parse and snapshot, none of the waiting.
 */
export async function production(chunks: string[], expected: unknown): Promise<number> {
  const clock = virtualClock();
  const frames = createFrameScheduler(clock.now, clock.setTimer);
  let requested = 0;
  let woken = 0;
  const scheduleParse = (wake: () => void): void => {
    requested += 1;
    frames(() => {
      woken += 1;
      wake();
    });
  };
  const { ui, target } = setup("rows", scheduleParse);
  const started = performance.now();
  const sink = ui.openDataTarget("rows")!;
  let nextFrame = MOUNT_FRAME_MS;
  for (let index = 0; index < chunks.length; index += 1) {
    const time = index * CHUNK_INTERVAL_MS;
    const before = woken;
    clock.advance(time);
    if (time >= nextFrame) {
      nextFrame += MOUNT_FRAME_MS;
      void target.value;
    }
    sink.push(chunks[index]);
    // The end of this delta's task: a hand-over on the microtask queue runs now, and the parse it started completes.
    if (woken !== before || (requested > woken && !clock.pending())) {
      await null;
      await streamDrained(target);
    }
  }
  const error = sink.end(false);
  void target.value;
  const elapsed = performance.now() - started;
  if (error) throw new Error(`bench fence failed: ${error.message}`);
  if (JSON.stringify(target.value) !== JSON.stringify(expected)) throw new Error("bench fence: wrong final value");
  if (woken < chunks.length / 32) throw new Error(`bench fence: only ${woken} hand-overs`);
  return elapsed;
}

async function batched(chunks: string[]): Promise<number> {
  const { ui, target } = setup("rows");
  const started = performance.now();
  const sink = ui.openDataTarget("rows")!;
  for (let index = 0; index < chunks.length; index += 1) {
    sink.push(chunks[index]);
    if (index % FRAME_CHUNKS === FRAME_CHUNKS - 1) {
      await streamIdle(target);
      void target.value;
    }
  }
  sink.end(false);
  void target.value;
  return performance.now() - started;
}

async function rawJsonriver(chunks: string[]): Promise<number> {
  const started = performance.now();
  async function* source(): AsyncGenerator<string> {
    yield* chunks;
  }
  for await (const value of parse(source())) void value;
  return performance.now() - started;
}

/** The no-flicker property on the StreamedData path: every number ever visible is a complete one. */
async function countPartialNumbers(chunks: string[], expected: unknown): Promise<number> {
  const complete = new Set<number>();
  const collect = (value: unknown, into: (n: number) => void): void => {
    if (typeof value === "number") into(value);
    else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) collect(item, into);
  };
  collect(expected, (n) => complete.add(n));
  const { ui, target } = setup("rows");
  const sink = ui.openDataTarget("rows")!;
  let partial = 0;
  for (const chunk of chunks) {
    sink.push(chunk);
    await streamIdle(target);
    collect(target.value, (n) => {
      if (!complete.has(n)) partial += 1;
    });
  }
  sink.end(false);
  return partial;
}

async function reparsePrefix(chunks: string[]): Promise<number> {
  let prefix = "";
  let measured = 0;
  for (let index = 0; index < chunks.length; index += 1) {
    prefix += chunks[index];
    if (index % REFERENCE_STRIDE !== 0) continue;
    const started = performance.now();
    await parsePartialJson(prefix);
    measured += performance.now() - started;
  }
  return measured * REFERENCE_STRIDE;
}

export async function run(): Promise<Record<string, number>> {
  const text = makeFence();
  const expected = JSON.parse(text);
  const chunks = chunksOf(text);
  console.log(`fence: ${(text.length / 1024).toFixed(1)} KB, ${chunks.length} chunks of ${CHUNK_SIZE} chars`);

  for (let index = 0; index < WARM_UP_RUNS; index += 1) {
    await production(chunks, expected);
    await perChunk(chunks, expected, FRAME_CHUNKS);
    await perChunk(chunks, expected, 1);
    await batched(chunks);
    await rawJsonriver(chunks);
  }
  const productionTimes: number[] = [];
  const perChunkTimes: number[] = [];
  const everyChunkTimes: number[] = [];
  const batchedTimes: number[] = [];
  const rawTimes: number[] = [];
  // The production runs go first, on their own: interleaved with the other
  // variants (the per-chunk ones make several times more garbage), each run
  // paid for scavenges of garbage it did not make. Its own garbage it still pays for.
  const references: number[] = [];
  for (let index = 0; index < MEASURED_RUNS; index += 1) {
    productionTimes.push(await production(chunks, expected));
    if (index % REFERENCE_EVERY === REFERENCE_EVERY - 1) references.push(await reparsePrefix(chunks));
  }
  for (let index = 0; index < MEASURED_RUNS; index += 1) {
    perChunkTimes.push(await perChunk(chunks, expected, FRAME_CHUNKS));
    everyChunkTimes.push(await perChunk(chunks, expected, 1));
    batchedTimes.push(await batched(chunks));
    rawTimes.push(await rawJsonriver(chunks));
  }
  const partialNumbers = await countPartialNumbers(chunks, expected);
  const reference = median(references);

  const line = (label: string, times: number[]): void =>
    console.log(`${label.padEnd(72)} best ${round(best(times))} ms, median ${round(median(times))} ms`);
  line(
    `production: StreamedData at ${1000 / CHUNK_INTERVAL_MS} deltas/s, parser fed per frame (≤ 10):`,
    productionTimes,
  );
  line("StreamedData, one hand-over per chunk, value read per frame:", perChunkTimes);
  line("  jsonriver alone, one hand-over per chunk:", rawTimes);
  line("StreamedData, one hand-over per chunk, value read after every chunk:", everyChunkTimes);
  line(`StreamedData, production batching (${FRAME_CHUNKS} chunks per hand-over):`, batchedTimes);
  console.log(`partial numbers ever visible (value read after every chunk): ${partialNumbers}`);
  console.log(
    `reference: parsePartialJson (ai) on the whole prefix after each chunk: ~${Math.round(reference)} ms (extrapolated from every ${REFERENCE_STRIDE}th chunk; median of ${references.length}, interleaved with the production runs)`,
  );

  return {
    "json.partial68KBMs": round(median(productionTimes)),
    "json.partial68KBMedianMs": round(median(productionTimes)),
    "json.partial68KBBestMs": round(best(productionTimes)),
    "json.partial68KBPerChunkHandOverMs": round(median(perChunkTimes)),
    "json.partial68KBValueEveryChunkMs": round(median(everyChunkTimes)),
    "json.partial68KBBatchedMs": round(median(batchedTimes)),
    "json.jsonriverPerChunk68KBMs": round(median(rawTimes)),
    "json.partialNumbersSeen": partialNumbers,
    "json.reparsePrefix68KBMs": Math.round(reference),
  };
}
