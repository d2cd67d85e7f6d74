/**
 * Each demo script, replayed as the app would: its replies cut into the demo
 * model's pieces and fed to the real protocol parser, its code run statement
 * by statement in a Node `vm` context that stands in for the realm (shared
 * top-level bindings, top-level await, a time budget for loops), and its
 * console output fed back through the real feedback message. Every script
 * must reach its last step without hitting the "unexpected output" fallback,
 * and its last step must run no code, so the interaction ends.
 *
 * Scripts that mount UIs need the real UI runtime and a person who submits
 * and clicks: test/demoScripts.test.ts plays every script, those included,
 * through the real agent loop and realm. Here their follow-ups are checked
 * against the output they answer.
 */
import { inspect } from "node:util";
import vm from "node:vm";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { createProtocolParser } from "../../protocol/parser";
import { splitIntoPieces } from "../demoModel";
import { formatFeedbackMessage, formatUiEventMessage } from "../feedbackMessage";
import { DEMO_UI_EVENT_REPLY, pickScript, selectDemoReply, type DemoMessage } from "../selectDemoReply";
import { DEMO_SCRIPTS, DEMO_SUGGESTIONS } from "./index";
import { readRolls } from "./diceButton";
import { readOrder } from "./pizzaForm";
import { unexpected, type DemoScript } from "./script";

interface ParsedReply {
  code: string[];
  text: string;
  errors: string[];
}

function parse(reply: string): ParsedReply {
  const parser = createProtocolParser();
  const kinds = new Map<number, string>();
  const bodies = new Map<number, string>();
  const errors: string[] = [];
  const events = [...splitIntoPieces(reply).flatMap((piece) => parser.push(piece)), ...parser.end()];
  for (const event of events) {
    if (event.type === "block-start") {
      kinds.set(event.index, event.kind);
      bodies.set(event.index, "");
    } else if (event.type === "block-delta") bodies.set(event.index, bodies.get(event.index)! + event.text);
    else if (event.type === "block-end" && event.unterminated) errors.push(`block ${event.index} unterminated`);
    else if (event.type === "protocol-error") errors.push(event.message);
  }
  const of = (kind: string) => [...kinds].filter(([, k]) => k === kind).map(([index]) => bodies.get(index)!);
  return { code: of("code"), text: of("text").join(""), errors };
}

/** A stand-in realm: one vm context, statements run one at a time, top-level bindings shared. */
function createRealm(quoteStrings: boolean) {
  const output: string[] = [];
  const format = (value: unknown) => (typeof value === "string" && !quoteStrings ? value : inspect(value));
  const log = (...values: unknown[]) => output.push(values.map(format).join(" "));
  const context = vm.createContext({
    console: { log, info: log, warn: log, error: log, debug: log },
    sleep: () => Promise.resolve(),
  });
  async function run(code: string): Promise<void> {
    const source = ts.createSourceFile("block.tsx", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TSX);
    for (const statement of source.statements) {
      const js = ts.transpileModule(statement.getText(source), {
        compilerOptions: { target: ts.ScriptTarget.ES2022 },
      }).outputText;
      try {
        if (/^\s*await\b/.test(js)) await vm.runInContext(`(async () => { ${js} })()`, context, { timeout: 200 });
        else vm.runInContext(js, context, { timeout: 200 });
      } catch (error) {
        const name = (error as Error).message.includes("timed out") ? "LoopGuardError" : (error as Error).name;
        const message = name === "LoopGuardError" ? "a loop ran past its time budget" : (error as Error).message;
        output.push(`${name}: ${message} (at ${statement.getStart(source)})`);
        output.push("Skipped: the rest of this reply's code did not run because of the error above.");
        return;
      }
    }
  }
  return { run, take: () => output.splice(0) };
}

const stepText = (step: DemoScript["steps"][number]) => (typeof step === "string" ? step : step(""));
const mountsUi = (script: DemoScript) =>
  script.steps.some((step) => parse(stepText(step)).code.some((code) => /\bmount\(/.test(code)));

describe.each(DEMO_SCRIPTS.map((script) => [script.name, script] as const))("demo script %s", (_name, script) => {
  // The realm may print strings bare (like browsers) or quoted (like inspect); the scripts must cope with both.
  // The stand-in realm has no UI runtime: scripts that mount are played in test/demoScripts.test.ts.
  if (!mountsUi(script))
    it.each([false, true])(
      "plays to its end through the parser, a realm and the feedback loop (quoted strings: %s)",
      async (quoteStrings) => {
        const realm = createRealm(quoteStrings);
        const messages: DemoMessage[] = [{ role: "user", content: script.suggestion }];
        for (let turn = 0; turn < 10; turn++) {
          const reply = selectDemoReply(messages);
          expect(reply.script.name).toBe(script.name);
          expect(reply.kind).toBe("script");
          expect(reply.step).toBe(turn);
          const parsed = parse(reply.text);
          expect(parsed.errors).toEqual([]);
          expect(parsed.text.trim().length).toBeGreaterThan(0);
          messages.push({ role: "assistant", content: reply.text });
          for (const code of parsed.code) await realm.run(code);
          const output = realm.take();
          if (output.length === 0) {
            // The script's last step: prose only, so the interaction ends here.
            expect(turn).toBe(script.steps.length - 1);
            expect(parsed.code).toEqual([]);
            return;
          }
          const feedback = formatFeedbackMessage(output);
          messages.push({ role: "user", content: feedback });
          const next = script.steps[turn + 1];
          expect(next, `step ${turn} logged, so a follow-up step must exist`).toBeDefined();
          if (typeof next === "function") expect(next(feedback)).not.toBe(unexpected(feedback));
        }
        throw new Error("script did not end within 10 turns");
      },
    );

  it("writes its code without semicolons at line ends, and its suggestion selects it", () => {
    for (const step of script.steps) {
      const text = typeof step === "string" ? step : step("");
      for (const code of parse(text).code) {
        for (const line of code.split("\n")) expect(line.trimEnd().endsWith(";"), line).toBe(false);
      }
    }
    expect(DEMO_SUGGESTIONS).toContain(script.suggestion);
  });
});

/** The next reply after `feedback` answered the script's first step. */
function follow(script: DemoScript, feedback: string): string {
  return selectDemoReply([
    { role: "user", content: script.suggestion },
    { role: "assistant", content: "…" },
    { role: "user", content: feedback },
  ]).text;
}

const byName = (name: string) => DEMO_SCRIPTS.find((script) => script.name === name)!;

describe("generative UI scripts", () => {
  it("one script per data flow, each selected by its suggestion and using the globals it shows", () => {
    const uses: Record<string, string[]> = {
      form: ["outputSchema", "await pizzaForm.result"],
      progress: ["new Data(", "progress.done = 4"],
      chart: ['new StreamedData("temps")', 'json agent.data => "temps"', "temps.value ?? []", "await temps.done"],
      button: ["callbacks:", "onClick"],
      dashboard: ["<Slot", 'board.mountSlot("totals"'],
    };
    for (const [name, needles] of Object.entries(uses)) {
      const script = byName(name);
      expect(mountsUi(script), name).toBe(true);
      expect(pickScript(script.suggestion).name).toBe(name);
      for (const needle of needles) expect(stepText(script.steps[0]), `${name}: ${needle}`).toContain(needle);
    }
    // Mount before stream: the chart's target and mount come before its data fence.
    const chart = stepText(byName("chart").steps[0]);
    expect(chart.indexOf("mount(")).toBeLessThan(chart.indexOf("agent.data"));
  });

  it("form: the follow-up answers the submitted values by name, quoting the person's words safely", () => {
    const script = byName("form");
    const reply = follow(
      script,
      formatFeedbackMessage(['order: {"name":"Ada","size":"large","count":2,"extraCheese":true}']),
    );
    expect(reply).toContain("Thanks, **Ada**!");
    expect(reply).toContain("**2 large pizzas**, with extra cheese");
    expect(reply).toContain("the number 2");
    // As the agent sends it: each console line says where it came from.
    const single = follow(
      script,
      formatFeedbackMessage(['[block 1 line 30] order: {"name":"Grace","size":"small","count":1,"extraCheese":false}']),
    );
    expect(single).toContain("**1 small pizza**.");
    const hostile = follow(
      script,
      formatFeedbackMessage([
        'order: {"name":"**[click](javascript:x)**","size":"medium","count":1,"extraCheese":false}',
      ]),
    );
    expect(hostile).not.toMatch(/\[click\]|\*\*\*\*/);
    expect(readOrder(formatFeedbackMessage(["order: not json"]))).toBeUndefined();
    const other = formatFeedbackMessage(["AbortError: Stopped"]);
    expect(follow(script, other)).toBe(unexpected(other));
  });

  it("progress, chart and dashboard follow-ups check the output they answer", () => {
    const cases: [string, string, RegExp][] = [
      ["progress", "[block 1 line 28] backup finished: 4 of 4 steps", /All \*\*4 steps\*\*/],
      ["chart", "months: 12 | warmest: Jul 28 | coolest: Jan 8", /\*\*July\*\* is the warmest/],
      ["dashboard", "revenue: 12930 | orders: 277 | busiest day: Sat 3120", /\*\*\$12,930\*\* from \*\*277 orders\*\*/],
    ];
    for (const [name, output, claim] of cases) {
      const script = byName(name);
      expect(follow(script, formatFeedbackMessage([output])), name).toMatch(claim);
      const wrong = formatFeedbackMessage(["TypeError: Cannot read properties of undefined (reading 'map')"]);
      expect(follow(script, wrong), name).toBe(unexpected(wrong));
    }
  });

  it("button: each click's UI event gets a reply about that roll; other scripts keep the generic UI-event reply", () => {
    const script = byName("button");
    const messages: DemoMessage[] = [
      { role: "user", content: script.suggestion },
      { role: "assistant", content: "…" },
    ];
    const first = selectDemoReply([
      ...messages,
      { role: "user", content: formatUiEventMessage(["rolled 4 | rolls so far: 4"]) },
    ]);
    expect(first).toMatchObject({ kind: "ui-event", step: -1 });
    expect(first.text).toContain("You rolled a **4**. That's your first roll.");
    expect(parse(first.text).code).toEqual([]);
    const burst = formatUiEventMessage([
      "[block 1] rolled 2 | rolls so far: 2",
      "[block 1] rolled 6 | rolls so far: 2, 6",
    ]);
    expect(selectDemoReply([...messages, { role: "user", content: burst }]).text).toContain(
      "A **6**, the best there is! Your 2 rolls so far add up to **8**, an average of 4.0.",
    );
    expect(readRolls(formatUiEventMessage(["something else"]))).toBeUndefined();
    const other = formatUiEventMessage(["TypeError: boom"]);
    expect(selectDemoReply([...messages, { role: "user", content: other }]).text).toBe(unexpected(other));
    const progress = byName("progress");
    expect(
      selectDemoReply([
        { role: "user", content: progress.suggestion },
        { role: "user", content: formatUiEventMessage(["x"]) },
      ]).text,
    ).toBe(DEMO_UI_EVENT_REPLY);
  });
});

describe("demo scripts, together", () => {
  it("have unique names and suggestions", () => {
    expect(new Set(DEMO_SCRIPTS.map((script) => script.name)).size).toBe(DEMO_SCRIPTS.length);
    expect(new Set(DEMO_SUGGESTIONS).size).toBe(DEMO_SCRIPTS.length);
  });

  it("the infinite-loop script is plain `while (true) {}` and sleeps pace the others", () => {
    const all = DEMO_SCRIPTS.flatMap((script) =>
      script.steps.map((step) =>
        typeof step === "string" ? step : step("loop guard still alive: declared before the loop"),
      ),
    );
    expect(all.some((text) => text.includes("while (true) {}"))).toBe(true);
    expect(all.filter((text) => text.includes("await sleep(800)")).length).toBeGreaterThanOrEqual(2);
  });
});
