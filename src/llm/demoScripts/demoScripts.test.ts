/**
 * Each demo script, replayed as the app would: its replies cut into the demo
 * model's pieces and fed to the real protocol parser, its code run statement
 * by statement in a Node `vm` context that stands in for the realm (shared
 * top-level bindings, top-level await, a time budget for loops), and its
 * console output fed back through the real feedback message. Every script
 * must reach its last step without hitting the "unexpected output" fallback,
 * and its last step must run no code, so the interaction ends.
 */
import { inspect } from "node:util";
import vm from "node:vm";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { createProtocolParser } from "../../protocol/parser";
import { splitIntoPieces } from "../demoModel";
import { formatFeedbackMessage } from "../feedbackMessage";
import { selectDemoReply, type DemoMessage } from "../selectDemoReply";
import { DEMO_SCRIPTS, DEMO_SUGGESTIONS } from "./index";
import { unexpected } from "./script";

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
  const context = vm.createContext({ console: { log, info: log, warn: log, error: log, debug: log }, sleep: () => Promise.resolve() });
  async function run(code: string): Promise<void> {
    const source = ts.createSourceFile("block.tsx", code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TSX);
    for (const statement of source.statements) {
      const js = ts.transpileModule(statement.getText(source), { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
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

describe.each(DEMO_SCRIPTS.map((script) => [script.name, script] as const))("demo script %s", (_name, script) => {
  // The realm may print strings bare (like browsers) or quoted (like inspect); the scripts must cope with both.
  it.each([false, true])("plays to its end through the parser, a realm and the feedback loop (quoted strings: %s)", async (quoteStrings) => {
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
  });

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

describe("demo scripts, together", () => {
  it("have unique names and suggestions", () => {
    expect(new Set(DEMO_SCRIPTS.map((script) => script.name)).size).toBe(DEMO_SCRIPTS.length);
    expect(new Set(DEMO_SUGGESTIONS).size).toBe(DEMO_SCRIPTS.length);
  });

  it("the infinite-loop script is plain `while (true) {}` and sleeps pace the others", () => {
    const all = DEMO_SCRIPTS.flatMap((script) => script.steps.map((step) => (typeof step === "string" ? step : step("loop guard still alive: declared before the loop"))));
    expect(all.some((text) => text.includes("while (true) {}"))).toBe(true);
    expect(all.filter((text) => text.includes("await sleep(800)")).length).toBeGreaterThanOrEqual(2);
  });
});
