/**
 * A tool, not a bench: the frames of a Chromium trace (bench/profileStream.ts
 * with TRACE=from,seconds) with the most main-thread CPU time between two
 * animation frames, and the trace events that CPU went to (nested events
 * count inside their parents too: read it as a breakdown, not a sum).
 *   npx tsx bench/traceFrames.ts /tmp/stream/trace.trace.json [frames = 6]
 */
import { readFileSync } from "node:fs";
import type { TraceEvent } from "./traceEvent";

const [file, count = "6"] = process.argv.slice(2);
if (!file) throw new Error("usage: npx tsx bench/traceFrames.ts <trace.json> [frames]");
const events = (JSON.parse(readFileSync(file, "utf8")) as { traceEvents: TraceEvent[] }).traceEvents;
const thread = (event: TraceEvent) => `${event.pid}:${event.tid}`;
const names = new Map(
  events.filter((event) => event.ph === "M" && event.name === "thread_name").map((e) => [thread(e), e.args?.name]),
);
const TASK = "ThreadControllerImpl::RunTask";
const busy = new Map<string, number>();
for (const event of events)
  if (event.ph === "X" && event.name === TASK && names.get(thread(event)) === "CrRendererMain")
    busy.set(thread(event), (busy.get(thread(event)) ?? 0) + (event.dur ?? 0));
const main = [...busy].sort((a, b) => b[1] - a[1])[0]?.[0];
const mine = events.filter((event) => thread(event) === main && event.ph === "X").sort((a, b) => a.ts - b.ts);
const frames = mine.filter((event) => event.name === "FireAnimationFrame").map((event) => event.ts);
const tasks = mine.filter((event) => event.name === TASK);
const rows: { at: number; cpu: number; by: Map<string, number> }[] = [];
for (let index = 1; index < frames.length; index += 1) {
  const [from, to] = [frames[index - 1], frames[index]];
  let cpu = 0;
  for (const task of tasks) if (task.ts + (task.dur ?? 0) > from && task.ts < to) cpu += task.tdur ?? 0;
  const by = new Map<string, number>();
  for (const event of mine)
    if (event.ts >= from && event.ts < to && event.name !== TASK)
      by.set(event.name, (by.get(event.name) ?? 0) + (event.tdur ?? 0));
  rows.push({ at: from - frames[0], cpu, by });
}
rows.sort((a, b) => b.cpu - a.cpu);
for (const row of rows.slice(0, Number(count))) {
  console.log(`frame at +${(row.at / 1000).toFixed(0)} ms: ${(row.cpu / 1000).toFixed(1)} ms CPU`);
  const top = [...row.by].sort((a, b) => b[1] - a[1]).slice(0, 14);
  console.log(`   ${top.map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`).join(" | ")}`);
}
