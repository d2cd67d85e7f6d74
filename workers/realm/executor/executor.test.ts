/**
 * Behaviour of the executor through the real splitter, transform and runner:
 * each input is streamed in several chunkings and must give the same events.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExecError, ExecEvent } from "../../../src/wire/events";
import { blockEnd, codeBlock, codeStart, dataBlock, delta } from "./blockEvents";
import { createExecutor, type DataSink, type Executor, type ExecutorOptions } from "./executor";

// ---------------------------------------------------------------- harness

/** A tiny React stand-in: elements are plain objects. */
const React = {
  createElement: (type: unknown, props: Record<string, unknown> | null, ...children: unknown[]) => ({
    type,
    props: props ?? {},
    children,
  }),
  Fragment: "Fragment",
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Chunk sizes every scenario is streamed with (Infinity: one chunk). */
const CHUNKINGS = [1, 3, 8, Number.POSITIVE_INFINITY];

type Block = { code: string; line?: number } | { data: string; id: string; line?: number };

interface Harness {
  executor: Executor;
  events: ExecEvent[];
  probe: { hits: unknown[] };
  targets: Map<string, { text: string; ended?: boolean }>;
}

function setup(overrides: Partial<ExecutorOptions> = {}, extraGlobals: Record<string, unknown> = {}): Harness {
  const events: ExecEvent[] = [];
  const probe = { hits: [] as unknown[] };
  const targets = new Map<string, { text: string; ended?: boolean }>();
  class StreamedData {
    text = "";
    constructor(id: string) {
      targets.set(id, this);
    }
  }
  const openDataTarget = (id: string): DataSink | undefined => {
    const target = targets.get(id);
    if (!target) return undefined;
    target.text = "";
    return {
      push: (delta) => void (target.text += delta),
      end: () => void (target.ended = true),
    };
  };
  const executor = createExecutor({
    globals: { React, sleep, probe, StreamedData, mount: () => ({ id: "m1" }), ...extraGlobals },
    onEvent: (event) => events.push(event),
    loopBudgetMs: 200,
    openDataTarget,
    ...overrides,
  });
  executor.beginReply();
  return { executor, events, probe, targets };
}

function chunks(text: string, size: number): string[] {
  if (!Number.isFinite(size)) return [text];
  const parts: string[] = [];
  for (let offset = 0; offset < text.length; offset += size) parts.push(text.slice(offset, offset + size));
  return parts;
}

/** Streams `blocks` as one reply (block i at line `line ?? 1`), then waits until idle. */
async function stream(harness: Harness, blocks: Block[], size: number): Promise<void> {
  const { executor } = harness;
  blocks.forEach((block, index) => {
    const line = block.line ?? 1;
    const events =
      "code" in block
        ? codeBlock(index, chunks(block.code, size), { line })
        : dataBlock(index, block.id, chunks(block.data, size), { line });
    for (const event of events) executor.handleBlock(event);
  });
  await executor.idle();
}

/** Turns of the event loop (the executor runs statements in tasks of its own); no clock involved. */
async function turns(count = 50): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Retry an expectation between turns of the event loop until it holds (a generous cap: it only ends a broken run). */
async function until(check: () => void, maxTurns = 20_000): Promise<void> {
  for (let turn = 0; ; turn += 1) {
    try {
      return check();
    } catch (error) {
      if (turn >= maxTurns) throw error;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** Events without timings, for comparing chunkings. */
function stable(events: ExecEvent[]): unknown[] {
  return events.map((event) => (event.type === "statement-end" ? { ...event, durationMs: 0 } : event));
}

const logs = (events: ExecEvent[]) => events.flatMap((event) => (event.type === "console" ? [event.text] : []));
const ofType = <K extends ExecEvent["type"]>(events: ExecEvent[], type: K) =>
  events.filter((event): event is Extract<ExecEvent, { type: K }> => event.type === type);
const failures = (events: ExecEvent[]): ExecError[] =>
  ofType(events, "statement-end").flatMap((event) => (event.error ? [event.error] : []));

/**
 * Runs `blocks` once per chunking, checks that every chunking gives the same
 * events, and hands the events of one run to `check`.
 */
async function everyChunking(
  blocks: Block[],
  check: (harness: Harness) => void | Promise<void>,
  options: { sameEvents?: boolean } = {},
): Promise<void> {
  let reference: unknown[] | undefined;
  for (const size of CHUNKINGS) {
    const harness = setup();
    await stream(harness, blocks, size);
    await check(harness);
    if (options.sameEvents === false) continue;
    const events = stable(harness.events);
    if (reference === undefined) reference = events;
    else expect(events, `chunk size ${size}`).toEqual(reference);
  }
}

/**
 * A clock the test moves by hand, given to the code as its timers (the
 * executor takes `setTimeout` and the rest from its globals) and its `sleep`.
 * `advance` fires what falls due in time order, letting the work each
 * callback queues run before the next.
 */
function manualClock() {
  let now = 0;
  let nextId = 1;
  const due = new Map<number, { at: number; run: () => void; every?: number }>();
  const schedule = (run: () => void, ms = 0, every?: number) => {
    const id = nextId++;
    due.set(id, { at: now + Math.max(0, ms), run, every });
    return id;
  };
  const clear = (id: unknown) => void due.delete(id as number);
  const globals = {
    setTimeout: (run: () => void, ms?: number) => schedule(run, ms),
    setInterval: (run: () => void, ms?: number) => schedule(run, Math.max(1, ms ?? 0), Math.max(1, ms ?? 0)),
    clearTimeout: clear,
    clearInterval: clear,
    sleep: (ms: number) => new Promise<void>((resolve) => void schedule(resolve, ms)),
  };
  async function advance(ms: number): Promise<void> {
    const end = now + ms;
    for (;;) {
      await turns(5);
      let next: [number, { at: number; run: () => void; every?: number }] | undefined;
      for (const entry of due) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      const [id, timer] = next;
      now = timer.at;
      if (timer.every) timer.at += timer.every;
      else due.delete(id);
      timer.run();
    }
    now = end;
  }
  return { globals, advance, pending: () => due.size };
}

// ---------------------------------------------------------------- tests

describe("executor", () => {
  describe("streaming", () => {
    it("runs code without semicolons statement by statement before the fence ends", () => {
      const { executor, probe, events } = setup();
      executor.handleBlock(codeStart(0, 1));
      executor.handleBlock(delta(0, "probe.hits.push(1)\n"));
      // `.then(...)` could still continue the line: not provably complete.
      expect(probe.hits).toEqual([]);
      executor.handleBlock(delta(0, "p"));
      expect(probe.hits).toEqual([1]);
      executor.handleBlock(delta(0, "robe.hits.push(2)\nprobe"));
      expect(probe.hits).toEqual([1, 2]);
      executor.handleBlock(delta(0, ".hits.push(3)"));
      expect(probe.hits).toEqual([1, 2]);
      executor.handleBlock(blockEnd(0));
      expect(probe.hits).toEqual([1, 2, 3]);
      expect(ofType(events, "statement-start").map((event) => event.line)).toEqual([1, 2, 3]);
      expect(ofType(events, "block-done")).toHaveLength(1);
    });

    it("starts each statement on the character that proves the previous one complete", () => {
      const code =
        "let total = 0\ntotal += 1\nconst doubled = [1, 2]\n  .map((n) => n * 2)\nprobe.hits.push(total, doubled)\n";
      const { executor, events } = setup();
      executor.handleBlock(codeStart(0, 1));
      const startedAt: number[] = [];
      for (let offset = 0; offset < code.length; offset += 1) {
        executor.handleBlock(delta(0, code[offset]));
        while (startedAt.length < ofType(events, "statement-start").length) startedAt.push(offset);
      }
      executor.handleBlock(blockEnd(0));
      // Each statement starts when the first character of the next line arrives.
      const lineStarts = [...code.matchAll(/\n(?=\S)/g)].map((match) => match.index + 1);
      expect(startedAt).toEqual([lineStarts[0], lineStarts[1], lineStarts[2]]);
      expect(ofType(events, "statement-start")).toHaveLength(4);
    });

    it("ignores `;` in comments", async () => {
      await everyChunking(
        [{ code: "const a = 1 // a; b\n/* c; d */ probe.hits.push(a)\nprobe.hits.push(2); // e; f\n" }],
        ({ events, probe }) => {
          expect(probe.hits).toEqual([1, 2]);
          expect(failures(events)).toEqual([]);
          expect(ofType(events, "statement-start").map((event) => event.source)).toEqual([
            "const a = 1",
            "probe.hits.push(a)",
            "probe.hits.push(2);",
          ]);
        },
      );
    });

    it("keeps `if (x) a()` and `else b()` on two lines together", async () => {
      await everyChunking(
        [{ code: 'const x = false\nif (x) probe.hits.push("a")\nelse probe.hits.push("b")\nprobe.hits.push("c")\n' }],
        ({ events, probe }) => {
          expect(probe.hits).toEqual(["b", "c"]);
          expect(ofType(events, "statement-start")).toHaveLength(3);
        },
      );
    });

    it("keeps a template literal with `;` and `${}` together", async () => {
      await everyChunking(
        [{ code: "const who = 'a;b'\nconst text = `x; ${who + `;${1 + 1}`} y;\n z`\nconsole.log(text)\n" }],
        ({ events }) => {
          expect(logs(events)).toEqual(["x; a;b;2 y;\n z"]);
        },
      );
    });

    it("runs JSX spanning many lines with `;` and apostrophes in its text", async () => {
      const code = `const Card = (props: { title: string }) => null
const view = (
  <Card title="Today's plan; v2">
    <p className="note">Don't panic; it's fine.</p>
    {["a", "b"].map((item) => (
      <li key={item}>{item};</li>
    ))}
    <>
      <br />
    </>
  </Card>
)
probe.hits.push(view)
`;
      await everyChunking([{ code }], ({ events, probe }) => {
        expect(failures(events)).toEqual([]);
        const view = probe.hits[0] as {
          type: unknown;
          props: { title: string };
          children: { props: unknown; children: unknown[] }[];
        };
        expect(typeof view.type).toBe("function");
        expect(view.props).toEqual({ title: "Today's plan; v2" });
        expect(view.children[0]).toEqual({
          type: "p",
          props: { className: "note" },
          children: ["Don't panic; it's fine."],
        });
        expect(view.children[1]).toEqual([
          { type: "li", props: { key: "a" }, children: ["a", ";"] },
          { type: "li", props: { key: "b" }, children: ["b", ";"] },
        ]);
        expect(view.children[2]).toEqual({
          type: "Fragment",
          props: {},
          children: [{ type: "br", props: {}, children: [] }],
        });
      });
    });

    it("gives the same events for any chunking (property)", async () => {
      const blocks = [
        "let n = 0\nfunction add(k: number) { n += k; console.log('n', n) }\nadd(1); add(2)\nconst list = [1, 2, 3]\n  .map((x) => x * 2)\n",
        "console.log(`sum ${list.reduce((a, b) => a + b, 0)}; ok`)\nif (n > 2) add(10)\nelse add(-1)\nconsole.log(<b>{n}</b>)\n",
      ];
      const run = async (cuts: number[][]) => {
        const harness = setup();
        blocks.forEach((code, index) => {
          harness.executor.handleBlock(codeStart(index, 1 + index * 10));
          let previous = 0;
          for (const cut of [
            ...cuts[index].filter((cut) => cut > 0 && cut < code.length).sort((a, b) => a - b),
            code.length,
          ]) {
            if (cut <= previous) continue;
            harness.executor.handleBlock(delta(index, code.slice(previous, cut)));
            previous = cut;
          }
          harness.executor.handleBlock(blockEnd(index));
        });
        await harness.executor.idle();
        return stable(harness.events);
      };
      const reference = await run([[], []]);
      expect(logs(reference as ExecEvent[])).toEqual([
        "n 1",
        "n 3",
        "sum 12; ok",
        "n 13",
        "{ type: 'b', props: {}, children: [ 13 ] }",
      ]);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.nat(120), { maxLength: 30 }),
          fc.array(fc.nat(120), { maxLength: 30 }),
          async (first, second) => {
            expect(await run([first, second])).toEqual(reference);
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  describe("persistent scope", () => {
    it("lets a closure over a persisted `let` see a later assignment, across blocks and replies", async () => {
      const harness = setup();
      await stream(
        harness,
        [{ code: "let n = 1\nconst get = () => n\n" }, { code: "n = 5\nprobe.hits.push(get())\n" }],
        4,
      );
      harness.executor.beginReply();
      await stream(harness, [{ code: "n++; probe.hits.push(get())" }], 2);
      expect(harness.probe.hits).toEqual([5, 6]);
      expect(failures(harness.events)).toEqual([]);
    });

    it("uses a function declared in statement 1 from statement 5 and from a later block, crediting the caller", async () => {
      const code =
        'function greet(name: string): number {\n  console.log("hi " + name)\n  return name.length\n}\nconst a = 1\nconst b = 2\nconst c = 3\nprobe.hits.push(greet("five"))\n';
      await everyChunking([{ code }, { code: 'greet("later")', line: 20 }], ({ events, probe }) => {
        expect(probe.hits).toEqual([4]);
        expect(ofType(events, "console").map(({ block, statement, text }) => ({ block, statement, text }))).toEqual([
          { block: 0, statement: 4, text: "hi five" },
          { block: 1, statement: 0, text: "hi later" },
        ]);
      });
    });

    it("keeps an enum and a class for later blocks", async () => {
      await everyChunking(
        [
          {
            code: 'enum Color { Red, Green = "g" }\nclass Counter {\n  count = 0\n  inc(): number { return ++this.count }\n}\n',
          },
          {
            code: "const counter = new Counter(); counter.inc()\nconsole.log(Color.Red, Color.Green, Color[0], counter.inc(), counter instanceof Counter)",
          },
        ],
        ({ events }) => {
          expect(failures(events)).toEqual([]);
          expect(logs(events)).toEqual(["0 g Red 2 true"]);
        },
      );
    });

    it("destructures with defaults and nesting into persistent bindings of the right kind", async () => {
      await everyChunking(
        [
          {
            code: 'const { a, b: { c = 3, d: [e, f = e * 2] }, ...rest } = { a: 1, b: { d: [4] }, x: 9, y: 10 } as any\nlet [first, , third = "t", ...others] = [1, 2, undefined, 4, 5]\nconsole.log(a, c, e, f, rest, first, third, others)\n',
          },
          { code: "first = 9; console.log(first)\na = 2\n" },
        ],
        ({ events }) => {
          expect(logs(events)).toEqual(["1 3 4 8 { x: 9, y: 10 } 1 t [ 4, 5 ]", "9"]);
          expect(failures(events)).toMatchObject([
            { code: "runtime", name: "TypeError", message: "Assignment to constant variable.", block: 1, line: 2 },
          ]);
        },
      );
    });

    it("throws `TypeError: Assignment to constant variable.` for a const, also from a closure", async () => {
      await everyChunking(
        [{ code: "const k = 1\nconst bump = () => k++\nk = 2\nconsole.log('never')\n" }],
        ({ events }) => {
          expect(failures(events)).toEqual([
            {
              code: "runtime",
              name: "TypeError",
              message: "Assignment to constant variable.",
              block: 0,
              line: 3,
              column: expect.any(Number),
              lineText: "k = 2",
            },
          ]);
          expect(logs(events)).toEqual([]);
          expect(ofType(events, "skipped")).toEqual([
            { type: "skipped", block: 0, fromStatement: 3, count: 1, fromLine: 4, reason: "error" },
          ]);
        },
      );
      const harness = setup();
      await stream(harness, [{ code: "const k = 1\nconst bump = () => k++\n" }], Infinity);
      harness.executor.beginReply();
      await stream(harness, [{ code: "bump()" }], Infinity);
      // The closure's own line belongs to an earlier reply: the error is placed at the call in this one.
      expect(failures(harness.events)).toMatchObject([
        { name: "TypeError", message: "Assignment to constant variable.", line: 1, lineText: "bump()" },
      ]);
    });

    it("replaces a binding re-declared in a later statement, as a REPL does", async () => {
      await everyChunking(
        [{ code: "const v = 1\nconst read = () => v\nlet v = 'two'\nv = 'three'\nconsole.log(read())\n" }],
        ({ events }) => {
          expect(failures(events)).toEqual([]);
          expect(logs(events)).toEqual(["three"]);
        },
      );
    });

    it("refuses to shadow platform and realm globals (`shadow-global`) and keeps them working", async () => {
      await everyChunking([{ code: "const fetch = 1" }], ({ events }) => {
        expect(failures(events)).toMatchObject([
          { code: "shadow-global", line: 1, column: 7, lineText: "const fetch = 1" },
        ]);
      });
      for (const code of [
        "function console() {}",
        "let { mount } = {}",
        "class Promise {}",
        "var JSON = 1",
        "let React = 1",
        "const sleep = 1",
      ]) {
        const harness = setup();
        await stream(harness, [{ code }], Infinity);
        expect(
          failures(harness.events).map((error) => error.code),
          code,
        ).toEqual(["shadow-global"]);
      }
      const harness = setup();
      await stream(harness, [{ code: "const fetch = 1" }], Infinity);
      harness.executor.beginReply();
      await stream(harness, [{ code: "probe.hits.push(typeof fetch, typeof console.log)" }], Infinity);
      expect(harness.probe.hits).toEqual(["function", "function"]);
    });

    it("refuses `import` without a module table (`unsupported`), and runs `export`ed code as plain code", async () => {
      const harness = setup();
      await stream(harness, [{ code: "import { x } from 'y'" }], Infinity);
      const errors = [...failures(harness.events), ...ofType(harness.events, "error").map((event) => event.error)];
      expect(errors.map((error) => error.code)).toEqual(["unsupported"]);

      const exported = setup();
      await stream(
        exported,
        [
          {
            code: "export const z = 1\nexport function f() { return z + 1 }\nexport { z, f }\nexport default f\nprobe.hits.push(f())\n",
          },
        ],
        Infinity,
      );
      expect(failures(exported.events)).toEqual([]);
      expect(exported.probe.hits).toEqual([2]);
    });

    it("reports an undeclared name as a ReferenceError and `typeof` of it as undefined", async () => {
      await everyChunking(
        [
          {
            code: "console.log(typeof later)\nconst use = () => later()\nfunction later() { return 'ok' }\nconsole.log(use())\nmissing + 1\n",
          },
        ],
        ({ events }) => {
          expect(logs(events)).toEqual(["undefined", "ok"]);
          expect(failures(events)).toMatchObject([
            { code: "runtime", name: "ReferenceError", message: "missing is not defined", line: 5 },
          ]);
        },
      );
    });
  });

  describe("TypeScript", () => {
    it("erases interfaces and types and runs generics, `as`, `satisfies` and optional chaining", async () => {
      const code = `interface User { id: number; name?: string }
type Id = User["id"]
function first<T>(items: T[]): T | undefined { return items[0] }
const users = [{ id: 1, name: "Ada" }] satisfies User[]
const u = first<User>(users) as User
console.log(u?.name?.toUpperCase(), (u as any)?.missing?.deep ?? "none", first([] as Id[]))
class Store<T> { private items: T[] = []; add(item: T): this { this.items.push(item); return this } get size(): number { return this.items.length } }
console.log(new Store<number>().add(1).add(2).size, users[0]!.id)
`;
      await everyChunking([{ code }], ({ events }) => {
        expect(failures(events)).toEqual([]);
        expect(logs(events)).toEqual(["ADA none undefined", "2 1"]);
        // `interface` and `type` are statements that do nothing.
        expect(
          ofType(events, "statement-end")
            .slice(0, 2)
            .map((event) => event.status),
        ).toEqual(["done", "done"]);
      });
    });
  });

  describe("loops and await", () => {
    it("runs `for`, `while`, `do`, `for…in/of` and `for await`", async () => {
      const code = `let total = 0
for (let i = 0; i < 4; i++) total += i
let j = 0
while (j < 3) { j++ }
do { j-- } while (j > 1)
for (const k in { p: 1, q: 2 }) total += k.length
for (const v of [10, 20]) total += v
async function* gen() { yield 1; await sleep(1); yield 2 }
for await (const g of gen()) total += g
console.log(total, j)
`;
      await everyChunking([{ code }], ({ events }) => {
        expect(failures(events)).toEqual([]);
        expect(logs(events)).toEqual(["41 1"]);
      });
    });

    it("a top-level try around a rejected await catches it, finally runs, and the next statement follows", async () => {
      await everyChunking(
        [
          {
            code: "try { await Promise.reject(new Error('no')) } catch (error) { console.log('caught', error.message) } finally { console.log('finally') }\nconsole.log('next')\n",
          },
        ],
        ({ events }) => {
          expect(failures(events)).toEqual([]);
          expect(logs(events)).toEqual(["caught no", "finally", "next"]);
        },
      );
    });

    it("holds the next statement while a top-level await runs; un-awaited promises run on", async () => {
      // Gates the test opens stand in for timers: with `sleep(5)` against
      // `sleep(30)`, a loaded machine could fire both at once and run them in
      // either order.
      const code =
        "const slow = gate('slow').then(() => probe.hits.push('unawaited'))\nawait gate('fast')\nprobe.hits.push('after await')\nawait slow\nprobe.hits.push('end')\n";
      let reference: unknown[] | undefined;
      for (const size of CHUNKINGS) {
        const gates = new Map<string, () => void>();
        const gate = (name: string) => new Promise<void>((resolve) => gates.set(name, resolve));
        const harness = setup({}, { gate });
        const done = stream(harness, [{ code }], size);
        await until(() => expect([...gates.keys()]).toEqual(["slow", "fast"]));
        await turns();
        expect(harness.probe.hits, "the await holds the next statement").toEqual([]);
        gates.get("fast")!();
        await until(() => expect(harness.probe.hits).toEqual(["after await"]));
        await turns();
        expect(harness.probe.hits, "`await slow` holds the rest").toEqual(["after await"]);
        gates.get("slow")!();
        await done;
        expect(harness.probe.hits).toEqual(["after await", "unawaited", "end"]);
        expect(failures(harness.events)).toEqual([]);
        const events = stable(harness.events);
        if (reference === undefined) reference = events;
        else expect(events, `chunk size ${size}`).toEqual(reference);
      }
    });
  });

  describe("errors", () => {
    it.each([
      ["const rows = { a: 1 }\nrows.forEach((row) => row)", "TypeError", "rows.forEach is not a function"],
      ["class K {}\nconst k = 1\nnew k()", "TypeError", "k is not a constructor"],
      ["const obj2 = {}\nfor (const item of obj2) probe.hits.push(item)", "TypeError", "obj2 is not iterable"],
      ["probe.nope()", "TypeError", "probe.nope is not a function"],
      ["const arr = [1, 2]\narr.then(() => 1)", "TypeError", "arr.then is not a function"],
      ["const box = { list: [] }\nbox.list.catch(() => 1)", "TypeError", "box.list.catch is not a function"],
      ["function load() { return 5 }\nload().finally(() => 1)", "TypeError", "load(...).finally is not a function"],
    ])("names the model's code, not the realm's rewrites: %s", async (code, name, message) => {
      const harness = setup();
      await stream(harness, [{ code }], Infinity);
      expect(failures(harness.events)).toMatchObject([{ code: "runtime", name, message }]);
    });

    it("names anonymous functions and classes after their declaration, as JavaScript does", async () => {
      const harness = setup();
      await stream(
        harness,
        [
          {
            code: "const App = () => 1\nlet Other = function () {}\nvar third = async () => 2\nconst Box = class {}\nconst kept = function inner() {}\nprobe.hits.push(App.name, Other.name, third.name, Box.name, kept.name, App())",
          },
        ],
        Infinity,
      );
      expect(failures(harness.events)).toEqual([]);
      expect(harness.probe.hits).toEqual(["App", "Other", "third", "Box", "inner", 1]);
    });

    it("a caught error reads as plain JavaScript words it, in catch blocks and rejection handlers", async () => {
      const harness = setup();
      const code = [
        "const rows = { a: 1 }",
        "try { rows.forEach(() => 1) } catch (error) { probe.hits.push(error.message) }",
        "const fail = async () => rows.map((x) => x)",
        "await fail().catch((error) => probe.hits.push(error.message))",
        "await fail().then(() => 1, (error) => probe.hits.push(String(error)))",
      ].join("\n");
      await stream(harness, [{ code }], Infinity);
      expect(failures(harness.events)).toEqual([]);
      expect(harness.probe.hits).toEqual([
        "rows.forEach is not a function",
        "rows.map is not a function",
        "TypeError: rows.map is not a function",
      ]);
    });

    it("gives back the model's source for String(fn) and fn.toString()", async () => {
      const harness = setup();
      const code = [
        "let n = 0",
        "function bump() { n++; for (const x of [1]) n += x; return n }",
        "const add = (a: number, b = () => 1) => a + b()",
        "const run = async () => { await sleep(1); return n }",
        "const object = { method() { return n } }",
        "probe.hits.push(String(bump), add.toString(), String(run), String(object.method))",
      ].join("\n");
      await stream(harness, [{ code }], Infinity);
      expect(failures(harness.events)).toEqual([]);
      expect(harness.probe.hits).toEqual([
        "function bump() { n++; for (const x of [1]) n += x; return n }",
        "(a: number, b = () => 1) => a + b()",
        "async () => { await sleep(1); return n }",
        "method() { return n }",
      ]);
      // Platform functions are untouched.
      expect(String(Math.max)).toContain("[native code]");
    });

    it("reports a syntax error in line 3 of 10 at line 3, as soon as it is certain", async () => {
      const lines = [
        "probe.hits.push(1)",
        "probe.hits.push(2)",
        "const = 5",
        ...Array.from({ length: 7 }, (_, i) => `probe.hits.push(${i + 4})`),
      ];
      const code = lines.join("\n") + "\n";
      for (const size of CHUNKINGS) {
        const { executor, events, probe } = setup();
        executor.handleBlock(codeStart(0, 11));
        for (const part of chunks(code, size)) executor.handleBlock(delta(0, part));
        // Reported before the fence closes.
        const errors = ofType(events, "error");
        expect(errors).toEqual([
          {
            type: "error",
            statement: 2,
            reply: 1,
            error: {
              code: "syntax",
              name: "SyntaxError",
              message: expect.any(String),
              block: 0,
              line: 13,
              column: 7,
              lineText: "const = 5",
            },
          },
        ]);
        executor.handleBlock(blockEnd(0));
        await executor.idle();
        expect(probe.hits).toEqual([1, 2]);
        expect(ofType(events, "skipped")).toEqual([
          { type: "skipped", block: 0, fromStatement: 2, count: 1, fromLine: 13, reason: "error" },
        ]);
        expect(ofType(events, "block-done")).toHaveLength(1);
      }
    });

    it("skips statements 5–10 and the later blocks of the reply after a throw in statement 4", async () => {
      const lines = Array.from({ length: 10 }, (_, i) =>
        i === 3 ? 'throw new RangeError("nope")' : `probe.hits.push(${i + 1})`,
      );
      await everyChunking(
        [
          { code: lines.join("\n") + "\n", line: 3 },
          { data: "[1]", id: "rows", line: 20 },
          { code: "probe.hits.push('later')\nprobe.hits.push('block')", line: 30 },
        ],
        ({ events, probe }) => {
          expect(probe.hits).toEqual([1, 2, 3]);
          expect(failures(events)).toEqual([
            // The column is where the error was created, as in a browser's console.
            {
              code: "runtime",
              name: "RangeError",
              message: "nope",
              block: 0,
              line: 6,
              column: 7,
              lineText: 'throw new RangeError("nope")',
            },
          ]);
          expect(ofType(events, "skipped")).toEqual([
            { type: "skipped", block: 0, fromStatement: 4, count: 6, fromLine: 7, reason: "error" },
            { type: "skipped", block: 1, fromStatement: 0, count: 0, fromLine: 20, reason: "error" },
            { type: "skipped", block: 2, fromStatement: 0, count: 2, fromLine: 30, reason: "error" },
          ]);
          expect(ofType(events, "block-done").map((event) => event.block)).toEqual([0, 1, 2]);
        },
      );
      // The next reply runs again.
      const harness = setup();
      await stream(harness, [{ code: "throw 1" }], Infinity);
      harness.executor.beginReply();
      await stream(harness, [{ code: "probe.hits.push('again')" }], Infinity);
      expect(harness.probe.hits).toEqual(["again"]);
      expect(failures(harness.events)).toMatchObject([{ name: "Uncaught", message: "1" }]);
    });

    it("maps a runtime error inside a function to the model's line and column", async () => {
      const code = "function risky(input: any) {\n  const value = input.deep.field\n  return value\n}\nrisky({})\n";
      await everyChunking([{ code, line: 7 }], ({ events }) => {
        expect(failures(events)).toEqual([
          {
            code: "runtime",
            name: "TypeError",
            message: expect.stringContaining("field"),
            block: 0,
            line: 8,
            column: 28,
            lineText: "  const value = input.deep.field",
          },
        ]);
      });
    });
  });

  describe("loop guard", () => {
    it("stops `while (true) {}` with a catchable error naming the line; the scope survives", async () => {
      const harness = setup();
      await stream(
        harness,
        [
          {
            code: "const kept = 'still here'\nlet spins = 0\nwhile (true) { spins++ }\nprobe.hits.push('skipped')\n",
            line: 5,
          },
        ],
        Infinity,
      );
      expect(failures(harness.events)).toEqual([
        {
          code: "loop-guard",
          name: "LoopGuardError",
          message: "Loop at line 7 ran for more than 0.2 s without yielding",
          block: 0,
          line: 7,
          column: 1,
          lineText: "while (true) { spins++ }",
        },
      ]);
      harness.executor.beginReply();
      await stream(harness, [{ code: "probe.hits.push(kept, spins > 0)" }], Infinity);
      expect(harness.probe.hits).toEqual(["still here", true]);
    });

    it("cannot be swallowed by a try/catch inside the loop", async () => {
      const harness = setup();
      await stream(
        harness,
        [{ code: "let caught = 0\nwhile (true) { try { for (;;) {} } catch { caught++ } }\n" }],
        Infinity,
      );
      expect(failures(harness.events).map((error) => error.code)).toEqual(["loop-guard"]);
      harness.executor.beginReply();
      await stream(harness, [{ code: "probe.hits.push(caught)" }], Infinity);
      expect(harness.probe.hits).toEqual([1]);
    });

    it("can be caught by the statement itself; the next statement starts after the event loop turned", async () => {
      const harness = setup();
      await stream(
        harness,
        [
          {
            code: "try { while (true) {} } catch (error) { console.log((error as Error).name) }\nlet n = 0\nfor (let i = 0; i < 1000; i++) n++\nconsole.log('next', n)",
          },
        ],
        Infinity,
      );
      expect(logs(harness.events)).toEqual(["LoopGuardError", "next 1000"]);
      expect(failures(harness.events)).toEqual([]);
    });

    it("stops runaway recursion; the scope survives", async () => {
      const harness = setup();
      await stream(
        harness,
        [
          {
            code: "const marker = 42\nfunction spin(n: number): number {\n  return n <= 0 ? 0 : spin(n - 1) + spin(n - 1)\n}\nspin(60)\n",
          },
        ],
        Infinity,
      );
      expect(failures(harness.events)).toMatchObject([
        { code: "loop-guard", name: "LoopGuardError", line: 2, message: expect.stringContaining("Function at line 2") },
      ]);
      harness.executor.beginReply();
      await stream(harness, [{ code: "function down(): number { return down() + 1 }\ndown()\n" }], Infinity);
      expect(
        failures(harness.events)
          .slice(1)
          .map((error) => error.name),
      ).toEqual([expect.stringMatching(/RangeError|LoopGuardError/)]);
      harness.executor.beginReply();
      await stream(harness, [{ code: "probe.hits.push(marker)" }], Infinity);
      expect(harness.probe.hits).toEqual([42]);
    });

    it("blames the loop, not a helper it calls", async () => {
      const harness = setup();
      await stream(harness, [{ code: "const noop = () => {}\nwhile (true) noop()\n" }], Infinity);
      expect(failures(harness.events)).toMatchObject([
        { code: "loop-guard", line: 2, message: expect.stringContaining("Loop at line 2") },
      ]);
    });
  });

  describe("console attribution", () => {
    it("credits late output to the statement that scheduled it", async () => {
      const code = `console.log("early")
setTimeout(() => console.log("late"), 50)
sleep(20).then(() => console.log("then"))
;(async () => { await sleep(10); console.log("async") })()
queueMicrotask(() => console.log("micro"))
console.log("sync")
`;
      for (const size of CHUNKINGS) {
        const clock = manualClock();
        const harness = setup({}, clock.globals);
        await stream(harness, [{ code }], size);
        await clock.advance(120);
        const credited = ofType(harness.events, "console").map(({ statement, text }) => `${statement}:${text}`);
        expect(credited.sort(), `chunk size ${size}`).toEqual([
          "0:early",
          "1:late",
          "2:then",
          "3:async",
          "4:micro",
          "5:sync",
        ]);
      }
    });

    it("credits output after a later reply began to its own reply", async () => {
      const clock = manualClock();
      const harness = setup({}, clock.globals);
      await stream(harness, [{ code: "setTimeout(() => console.log('from reply 1'), 30)" }], Infinity);
      harness.executor.beginReply();
      await stream(harness, [{ code: "console.log('reply 2')" }], Infinity);
      await clock.advance(80);
      expect(
        ofType(harness.events, "console").map(({ reply, block, statement, text }) => ({
          reply,
          block,
          statement,
          text,
        })),
      ).toEqual([
        { reply: 2, block: 0, statement: 0, text: "reply 2" },
        { reply: 1, block: 0, statement: 0, text: "from reply 1" },
      ]);
    });

    it("credits a callback entered from outside (a UI handler) to the statement that defined it", async () => {
      const harness = setup();
      await stream(
        harness,
        [{ code: "const a = 1\nconst onClick = () => console.log('clicked')\nprobe.hits.push(onClick)\n" }],
        Infinity,
      );
      // Entered later, from a task of its own.
      await turns(1);
      (harness.probe.hits[0] as () => void)();
      expect(ofType(harness.events, "console").map(({ statement, text }) => ({ statement, text }))).toEqual([
        { statement: 1, text: "clicked" },
      ]);
    });

    it("reports a throw in a timer as an error of the statement that scheduled it", async () => {
      const clock = manualClock();
      const harness = setup({}, clock.globals);
      await stream(
        harness,
        [
          {
            code: "console.log('a')\nsetTimeout(() => { throw new Error('timer boom') }, 5)\nconsole.log('b')\n",
            line: 4,
          },
        ],
        Infinity,
      );
      await clock.advance(40);
      expect(ofType(harness.events, "error")).toMatchObject([
        { statement: 1, reply: 1, error: { code: "runtime", name: "Error", message: "timer boom", block: 0, line: 5 } },
      ]);
      expect(logs(harness.events)).toEqual(["a", "b"]);
    });

    it("reports an uncaught async error handed to reportUncaught at its line", async () => {
      const harness = setup();
      await stream(
        harness,
        [
          {
            code: "async function boom() {\n  await null\n  throw new Error('async boom')\n}\nboom().catch((error) => probe.hits.push(error))\n",
          },
        ],
        Infinity,
      );
      await until(() => expect(harness.probe.hits).toHaveLength(1));
      harness.executor.reportUncaught(harness.probe.hits[0]);
      expect(ofType(harness.events, "error")).toMatchObject([
        { error: { name: "Error", message: "async boom", line: 3, lineText: "  throw new Error('async boom')" } },
      ]);
    });

    it("locates an error thrown by model code for others (the UI runtime)", async () => {
      const harness = setup();
      await stream(
        harness,
        [
          {
            code: "const a = 1\nconst render = () => {\n  throw new Error('in render')\n}\nprobe.hits.push(render)\n",
            line: 10,
          },
        ],
        Infinity,
      );
      let thrown: unknown;
      try {
        (harness.probe.hits[0] as () => void)();
      } catch (error) {
        thrown = error;
      }
      expect(harness.executor.locate(thrown)).toEqual({
        reply: 1,
        block: 0,
        statement: 1,
        line: 12,
        column: 9,
        lineText: "  throw new Error('in render')",
      });
      expect(harness.executor.locate(new Error("not ours"))).toBeUndefined();
    });

    it("formats objects readably and strings unquoted at top level", async () => {
      await everyChunking(
        [
          {
            code: "console.log('text', { a: 1, b: ['x'] }, [1, 2], null, undefined, 3n)\nconsole.warn('%s has %d items', 'cart', 3)\nconsole.error(new TypeError('bad'))\nconsole.info(new Map([['k', 1]]))\n",
          },
        ],
        ({ events }) => {
          expect(ofType(events, "console").map(({ level, text }) => `${level}: ${text}`)).toEqual([
            "log: text { a: 1, b: [ 'x' ] } [ 1, 2 ] null undefined 3n",
            "warn: cart has 3 items",
            "error: TypeError: bad",
            "info: Map (1) {'k' => 1}",
          ]);
        },
      );
    });
  });

  describe("abort", () => {
    it("stops waiting for `await sleep`, skips the rest and clears the reply's timers", async () => {
      const clock = manualClock();
      const { executor, events, probe } = setup({}, clock.globals);
      executor.handleBlock(codeStart(0, 1));
      executor.handleBlock(
        delta(
          0,
          "setTimeout(() => probe.hits.push('timer'), 30)\nconsole.log('before')\nawait sleep(10000)\nconsole.log('after')\nconsole.log('more')\n",
        ),
      );
      // The timer is set and the code waits in `await sleep(10000)`.
      await until(() => expect(clock.pending()).toBe(2));
      const started = performance.now();
      executor.abort();
      await executor.idle();
      expect(performance.now() - started).toBeLessThan(1000);
      expect(failures(events)).toMatchObject([{ code: "aborted", block: 0, line: 3 }]);
      executor.handleBlock(blockEnd(0));
      expect(ofType(events, "skipped")).toEqual([
        { type: "skipped", block: 0, fromStatement: 3, count: 2, fromLine: 4, reason: "aborted" },
      ]);
      expect(ofType(events, "block-done")).toHaveLength(1);
      await clock.advance(60);
      expect(probe.hits).toEqual([]);
      expect(logs(events)).toEqual(["before"]);
      // Later blocks of the aborted reply are skipped; the next reply runs.
      executor.handleBlock(codeStart(1, 10));
      executor.handleBlock(delta(1, "probe.hits.push('same reply')"));
      executor.handleBlock(blockEnd(1));
      executor.beginReply();
      executor.handleBlock(codeStart(0, 1));
      executor.handleBlock(delta(0, "probe.hits.push('next reply')"));
      executor.handleBlock(blockEnd(0));
      await executor.idle();
      expect(probe.hits).toEqual(["next reply"]);
    });
  });

  describe("data blocks", () => {
    it("waits for the statement that creates its target, in protocol order", async () => {
      await everyChunking(
        [
          { code: "await sleep(20)\nconst rows = new StreamedData('rows')\n" },
          { data: "[1, 2, 3]", id: "rows", line: 4 },
          { code: "console.log(rows.text)", line: 8 },
        ],
        ({ events }) => {
          expect(logs(events)).toEqual(["[1, 2, 3]"]);
          expect(ofType(events, "error")).toEqual([]);
          expect(ofType(events, "block-done").map((event) => event.block)).toEqual([0, 1, 2]);
        },
      );
    });

    it("reports an unknown target and goes on", async () => {
      await everyChunking([{ data: "{}", id: "nope", line: 2 }, { code: "console.log('after')" }], ({ events }) => {
        expect(ofType(events, "error")).toMatchObject([{ error: { code: "unknown-target", block: 0, line: 2 } }]);
        expect(logs(events)).toEqual(["after"]);
      });
    });
  });
});
