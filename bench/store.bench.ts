/**
 * Store benchmarks (DESIGN.md §3 "Persistence"). Runs on fake-indexeddb in
 * Node: a pure-JS IndexedDB, so absolute times differ from a browser's
 * (usually slower here; the browser also pays structured-clone and disk).
 *
 * - store.open500MessagesMs: reopen the database (a page reload) and load a
 *   session of 500 messages with 50 mount snapshots until the newest
 *   message's data is available. Median of runs. Budget ≤ 1000. The data
 *   load only: drawing it in a page is session.bench's
 *   `session.open2000MessagesMs`.
 * - store.writesPerReply: database writes per second of streaming while a
 *   20k-token reply streams at 200 tokens/s through the session writer (on a
 *   virtual clock, real database writes). Budget ≤ 2. The naive reference,
 *   one write per token, is 200.
 * - store.export500MessagesMs: export the same session to JSON text. Median.
 */
import { IDBKeyRange } from "fake-indexeddb";
import type { ChatMessage } from "../src/agent/agent";
import { exportSession, serializeExport } from "../src/store/exportImport";
import { createSession, loadSession, saveMessages, saveMounts } from "../src/store/sessions";
import { createSessionWriter } from "../src/store/sessionWriter";
import { openStore, type Store } from "../src/store/store";
import {
  ManualTimer,
  assistantMessage,
  drainJobs,
  sampleSnapshot,
  testStoreOptions,
  userMessage,
} from "../src/store/testSupport";

const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const round = (value: number) => Math.round(value * 100) / 100;

/** A realistic reply: ~3 KB of Markdown with a code block whose statements ran and logged. */
function realisticReply(index: number): ChatMessage {
  const code = Array.from(
    { length: 30 },
    (_, line) => `const value${line} = rows${index}.filter((row) => row.total > ${line}).length; // line ${line}`,
  ).join("\n");
  const prose = `Here is the analysis for request ${index}. `.repeat(20);
  const message = assistantMessage(`m${index}`, `${prose}\n\`\`\`tsx agent.run\n${code}\n\`\`\`\n${prose}`, {
    seed: index,
    createdAt: index,
  });
  if (message.role === "assistant") {
    const block = message.reply.blocks[1];
    if (block.kind === "code") {
      block.source = code;
      block.statements = code.split("\n").map((source, statement) => ({
        statement,
        line: statement + 3,
        endLine: statement + 3,
        source,
        status: "done",
        logs: statement % 5 === 0 ? [{ level: "log", text: `value${statement} = ${statement * index}` }] : [],
      }));
    }
  }
  return message;
}

export function realisticConversation(count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? userMessage(`m${index}`, `Question ${index}: break the sales down by region and quarter, then chart it.`, index)
      : realisticReply(index),
  );
}

async function openOrThrow(options: ReturnType<typeof testStoreOptions>): Promise<Store> {
  const opened = await openStore(options);
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.store;
}

async function openAndLoad(): Promise<{ openMs: number; exportMs: number; bytes: number }> {
  const options = testStoreOptions({ IDBKeyRange });
  const writer = await openOrThrow(options);
  const session = await createSession(writer, { title: "Benchmark session" });
  const messages = realisticConversation(500);
  await saveMessages(writer, session.id, messages);
  await saveMounts(
    writer,
    session.id,
    Array.from({ length: 50 }, (_, index) => ({
      mountId: `mount-${index}`,
      messageId: `m${index * 10 + 1}`,
      snapshot: sampleSnapshot(index),
    })),
  );
  writer.db.close();

  const opens: number[] = [];
  const exports: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const store = await openOrThrow(options);
    const loaded = await loadSession(store, session.id);
    const newest = loaded?.messages.at(-1);
    if (!loaded || !newest || newest.id !== "m499" || loaded.mounts.length !== 50)
      throw new Error("the session did not load completely");
    opens.push(performance.now() - started);

    const exportStarted = performance.now();
    const text = serializeExport(await exportSession(store, session.id));
    exports.push(performance.now() - exportStarted);
    bytes = text.length;
    store.db.close();
  }
  return { openMs: median(opens), exportMs: median(exports), bytes };
}

async function streamingReply(): Promise<{ writesPerSecond: number; writeMs: number[]; seconds: number }> {
  const store = await openOrThrow(testStoreOptions({ IDBKeyRange }));
  const session = await createSession(store);
  const timer = new ManualTimer();
  const writer = createSessionWriter(store, session.id, { timer });
  // CPU time, not wall time: on a shared machine the wall clock mostly measures the neighbours.
  const writeMs: number[] = [];
  const settle = async () => {
    const started = process.cpuUsage();
    await drainJobs();
    await writer.whenIdle();
    const used = process.cpuUsage(started);
    writeMs.push((used.user + used.system) / 1000);
  };
  const tokens = 20_000;
  const perTokenMs = 5; // 200 tokens per second
  writer.markDirty(userMessage("u1", "Write a long report."));
  let reply = assistantMessage("a1", "", { state: "streaming" });
  const words = ["revenue ", "north ", "grew ", "by ", "12% ", "while ", "the ", "south ", "stayed ", "flat. "];
  for (let index = 0; index < tokens; index += 1) {
    await timer.advanceTo(index * perTokenMs, settle);
    reply = { ...reply, text: reply.text + words[index % words.length] } as ChatMessage;
    writer.markDirty(reply);
  }
  // The stream ends right after its last token: the reply is marked done and flushed at once.
  writer.markDirty({ ...reply, state: "done" } as ChatMessage);
  await writer.flush();
  const seconds = (tokens * perTokenMs) / 1000;
  const loaded = await loadSession(store, session.id);
  if ((loaded?.messages[1] as { text: string }).text !== reply.text)
    throw new Error("the reply was not saved completely");
  store.db.close();
  return { writesPerSecond: writer.writeCount / seconds, writeMs: writeMs.slice(0, writer.writeCount), seconds };
}

/** The naive reference: one database write per token, timed over the first 1000 tokens. */
async function naivePerToken(): Promise<number> {
  const store = await openOrThrow(testStoreOptions({ IDBKeyRange }));
  const session = await createSession(store);
  let reply = assistantMessage("a1", "", { state: "streaming" });
  const started = process.cpuUsage();
  for (let index = 0; index < 1000; index += 1) {
    reply = { ...reply, text: reply.text + "word " } as ChatMessage;
    await saveMessages(store, session.id, [reply]);
  }
  const used = process.cpuUsage(started);
  const perToken = (used.user + used.system) / 1000 / 1000;
  store.db.close();
  return perToken;
}

export async function run(): Promise<Record<string, number>> {
  console.log("(fake-indexeddb in Node: a pure-JS IndexedDB; browser numbers will differ)");
  const { openMs, exportMs, bytes } = await openAndLoad();
  console.log(
    `open + load 500 messages / 50 mounts (the data load only; opening in the browser: session.bench): median ${round(openMs)} ms over ${RUNS} runs (budget ≤ 1000)`,
  );
  console.log(`export of the same session: median ${round(exportMs)} ms, ${(bytes / 1024).toFixed(0)} KB of JSON`);
  const streaming = await streamingReply();
  const sortedWrites = [...streaming.writeMs].sort((a, b) => a - b);
  const p95 = sortedWrites[Math.floor(sortedWrites.length * 0.95)] ?? 0;
  console.log(
    `20k-token reply at 200 tokens/s (${streaming.seconds} s): ${round(streaming.writesPerSecond)} writes/s (budget ≤ 2); ` +
      `CPU per write of the growing reply p95 ${round(p95)} ms`,
  );
  const naive = await naivePerToken();
  console.log(
    `naive reference, one write per token: 200 writes/s, ${round(naive)} ms CPU each (short replies) → ${round(naive * 200)} ms CPU per second of streaming ` +
      `(write-behind, p95 write of a long reply: ≤ ${round(p95 * streaming.writesPerSecond)} ms per second)`,
  );
  return {
    "store.open500MessagesMs": round(openMs),
    "store.writesPerReply": round(streaming.writesPerSecond),
    "store.export500MessagesMs": round(exportMs),
  };
}
