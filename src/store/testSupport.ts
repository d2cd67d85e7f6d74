/**
 * Shared by the store's tests and benchmark (Node only): a store on a private
 * fake-indexeddb factory, a deterministic clock, a manual timer, a database
 * dump, and message builders shaped like the agent's.
 */
import { IDBFactory, IDBKeyRange, IDBObjectStore } from "fake-indexeddb";
import type { ChatMessage } from "../agent/types";
import type { ReplyView } from "../agent/reply";
import type { LivemarkDatabase } from "./db";
import { createStore, openStore, type OpenStoreOptions, type Store } from "./store";
import type { Timer } from "./writeBehind";

export function testStoreOptions(options: OpenStoreOptions = {}): OpenStoreOptions & { indexedDB: IDBFactory } {
  let time = 1_700_000_000_000;
  let counter = 0;
  return {
    name: "livemark-test",
    indexedDB: new IDBFactory(),
    IDBKeyRange,
    now: () => (time += 1),
    newId: () => `id${(counter++).toString().padStart(5, "0")}`,
    ...options,
  } as OpenStoreOptions & { indexedDB: IDBFactory };
}

export async function openTestStore(options: OpenStoreOptions = {}): Promise<Store> {
  const opened = await openStore(testStoreOptions(options));
  if (!opened.ok) throw new Error(`could not open the test store: ${opened.error.code}`);
  return opened.store;
}

/** A store that is not opened yet (Dexie opens on first use). */
export function createTestStore(options: OpenStoreOptions = {}): Store {
  return createStore(testStoreOptions(options));
}

/** Every row of every table, in key order: compare before/after to prove nothing changed. */
export async function dumpDatabase(db: LivemarkDatabase): Promise<Record<string, unknown[]>> {
  const dump: Record<string, unknown[]> = {};
  for (const table of db.tables) dump[table.name] = await table.toArray();
  return dump;
}

/**
 * A timer driven by hand. `advanceTo` runs due callbacks in time order and
 * lets the promise jobs they start settle before the next one, as real
 * timers would.
 */
export class ManualTimer implements Timer {
  private time = 0;
  private sequence = 0;
  private readonly tasks = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = ++this.sequence;
    this.tasks.set(handle, { at: this.time + Math.max(0, ms), callback });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.tasks.delete(handle as number);
  }

  get scheduled(): number {
    return this.tasks.size;
  }

  async advanceTo(time: number, settle: () => Promise<void> = drainJobs): Promise<void> {
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.tasks) if (entry[1].at <= time && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.tasks.delete(next[0]);
      this.time = next[1].at;
      next[1].callback();
      await settle();
    }
    this.time = Math.max(this.time, time);
  }

  async advance(ms: number, settle?: () => Promise<void>): Promise<void> {
    await this.advanceTo(this.time + ms, settle);
  }
}

/** Let every pending promise job (and fake-indexeddb's immediate callbacks) run. */
export function drainJobs(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function userMessage(id: string, text: string, createdAt = 1): ChatMessage {
  return { id, role: "user", text, createdAt };
}

/** A reply with a text block, a code block whose statements ran with logs, and a data block. */
export function sampleReply(seed: number): ReplyView {
  return {
    blocks: [
      { index: 0, kind: "text", line: 1, text: `Here is chart ${seed}.\n` },
      {
        index: 1,
        kind: "code",
        lang: "tsx",
        line: 3,
        source: `const rows${seed} = new Data({ rows: [] });\nconsole.log("rows", ${seed});\n`,
        closed: true,
        unterminated: false,
        status: "done",
        statements: [
          {
            statement: 0,
            line: 3,
            endLine: 3,
            source: `const rows${seed} = new Data({ rows: [] });`,
            status: "done",
            logs: [],
          },
          {
            statement: 1,
            line: 4,
            endLine: 4,
            source: `console.log("rows", ${seed});`,
            status: "done",
            logs: [{ level: "log", text: `rows ${seed}` }],
          },
        ],
      },
      {
        index: 2,
        kind: "data",
        id: `sales${seed}`,
        line: 7,
        source: `{"rows":[{"region":"north","total":${seed}}]}\n`,
        closed: true,
        unterminated: false,
        status: "done",
      },
    ],
    protocolErrors: [],
    notices: [],
  };
}

export function assistantMessage(
  id: string,
  text: string,
  options: { state?: "streaming" | "done" | "interrupted"; seed?: number; createdAt?: number } = {},
): ChatMessage {
  return {
    id,
    role: "assistant",
    text,
    reply: sampleReply(options.seed ?? 1),
    state: options.state ?? "done",
    createdAt: options.createdAt ?? 2,
  };
}

/** A conversation of `count` messages alternating user / assistant, with a feedback and a notice now and then. */
export function conversation(count: number, prefix = "m"): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let index = 0; index < count; index += 1) {
    const id = `${prefix}${index}`;
    if (index % 10 === 9) {
      messages.push({
        id,
        role: "feedback",
        text: `<runtime-output>\nrows ${index}\n</runtime-output>`,
        body: `rows ${index}`,
        source: "runtime",
        createdAt: index,
      });
    } else if (index % 25 === 24) {
      messages.push({ id, role: "notice", text: `Notice ${index}`, level: "info", createdAt: index });
    } else if (index % 2 === 0) {
      messages.push(userMessage(id, `Question ${index}: show the sales by region for year ${2000 + index}`, index));
    } else {
      messages.push(
        assistantMessage(id, `Answer ${index}\n\`\`\`tsx agent.run\nconsole.log(${index})\n\`\`\`\n`, {
          seed: index,
          createdAt: index,
        }),
      );
    }
  }
  return messages;
}

/** A mount snapshot tree of moderate size. */
export function sampleSnapshot(seed: number): unknown {
  return {
    root: "n0",
    nodes: Array.from({ length: 20 }, (_, index) => ({
      id: `n${index}`,
      type: index === 0 ? "Card" : "div",
      props: { className: "p-2", "data-seed": seed },
      children: index < 19 ? [`n${index + 1}`] : [],
      ...(index === 19 ? { text: `value ${seed}` } : {}),
    })),
  };
}

/**
 * A full disk, for the fake-indexeddb in this process: while `full` is true,
 * every `put` and `add` throws QuotaExceededError (as a browser over its
 * quota does); deletes still work. `restore()` puts the methods back.
 */
export function quotaFault(): { full: boolean; restore(): void } {
  const prototype = IDBObjectStore.prototype as unknown as Record<"put" | "add", (...args: unknown[]) => unknown>;
  const original = { put: prototype.put, add: prototype.add };
  const fault = {
    full: false,
    restore() {
      prototype.put = original.put;
      prototype.add = original.add;
    },
  };
  for (const name of ["put", "add"] as const)
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      if (fault.full) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      return original[name].apply(this, args);
    };
  return fault;
}
