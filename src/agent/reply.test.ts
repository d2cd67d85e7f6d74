import { describe, expect, test } from "vitest";
import type { ExecEvent } from "../wire/events";
import { FeedbackCollector, FEEDBACK_HEAD_LINES, FEEDBACK_TAIL_LINES } from "./feedback";
import {
  applyExecEvent,
  applyProtocolEvent,
  emptyReply,
  endUnfinished,
  MAX_LOG_LINES_PER_STATEMENT,
  omittedLinesText,
  type BlockView,
} from "./reply";
import { replyWithStatement } from "./replyTestSupport";

const statementOf = (blocks: BlockView[]) => {
  const block = blocks[0];
  if (block.kind !== "code") throw new Error("not code");
  return block.statements[0];
};

describe("endUnfinished: a reply that ended without the realm's word on its code", () => {
  test("the running statement reads as stopped (its block in error), a block not yet run as skipped, the rest as they were", () => {
    let reply = replyWithStatement();
    reply = applyProtocolEvent(reply, { type: "block-start", index: 1, kind: "code", lang: "ts", line: 5 } as never);
    const ended = endUnfinished(reply);
    const [running, waiting] = ended.blocks;
    expect(running).toMatchObject({
      status: "error",
      error: { code: "aborted", message: "Stopped", block: 0, line: 2 },
    });
    expect(statementOf(ended.blocks)).toMatchObject({ status: "error", error: { code: "aborted" } });
    expect(waiting).toMatchObject({ status: "skipped", skippedFromLine: 6 });
    // The stopped block's lines after its running statement did not run.
    expect(running).toMatchObject({ skippedFromLine: 3 });
    // Nothing left running anywhere.
    expect(JSON.stringify(ended)).not.toContain('"running"');
  });

  test("a reply whose code all ended is returned as it is", () => {
    let reply = replyWithStatement();
    reply = applyExecEvent(reply, { type: "statement-end", block: 0, statement: 0, status: "done", durationMs: 1 });
    reply = applyExecEvent(reply, { type: "block-done", block: 0 });
    expect(endUnfinished(reply)).toBe(reply);
  });
});

describe("console output in the reply view", () => {
  test("a flood keeps the first lines per statement and counts the rest", () => {
    let reply = replyWithStatement();
    for (let index = 0; index < 100_000; index += 1) {
      reply = applyExecEvent(reply, { type: "console", block: 0, statement: 0, level: "log", text: `line ${index}` });
    }
    const statement = statementOf(reply.blocks);
    expect(statement.logs).toHaveLength(MAX_LOG_LINES_PER_STATEMENT);
    expect(statement.logs[0].text).toBe("line 0");
    expect(statement.omitted).toBe(100_000 - MAX_LOG_LINES_PER_STATEMENT);
    expect(omittedLinesText(statement.omitted!)).toBe("99,500 more lines not shown");
  });

  test("the realm's count of lines it did not send adds to the statement's omitted lines", () => {
    let reply = replyWithStatement();
    reply = applyExecEvent(reply, { type: "console", block: 0, statement: 0, level: "log", text: "first" });
    reply = applyExecEvent(reply, {
      type: "console",
      block: 0,
      statement: 0,
      level: "info",
      text: "",
      omitted: 999_500,
    });
    reply = applyExecEvent(reply, { type: "console", block: 0, statement: 0, level: "info", text: "", omitted: 10 });
    const statement = statementOf(reply.blocks);
    expect(statement.logs).toEqual([{ level: "log", text: "first" }]);
    expect(statement.omitted).toBe(999_510);
  });
});

describe("FeedbackCollector", () => {
  test("gives the model a bounded excerpt: the first and last lines with a marked gap", () => {
    const collector = new FeedbackCollector();
    collector.add({ type: "statement-start", block: 0, statement: 0, line: 3, endLine: 3, source: "" } as ExecEvent);
    for (let index = 0; index < 50_000; index += 1)
      collector.add({ type: "console", block: 0, statement: 0, level: "log", text: `line ${index}` });
    collector.add({ type: "console", block: 0, statement: 0, level: "info", text: "", omitted: 950_000 });
    const lines = collector.text().split("\n");
    expect(lines).toHaveLength(FEEDBACK_HEAD_LINES + 1 + FEEDBACK_TAIL_LINES);
    expect(lines[0]).toBe("[block 0 line 3] line 0");
    expect(lines[FEEDBACK_HEAD_LINES]).toBe(
      `[… ${50_001 - FEEDBACK_HEAD_LINES - FEEDBACK_TAIL_LINES} more lines not shown …]`,
    );
    expect(lines.at(-2)).toBe("[block 0 line 3] line 49999");
    expect(lines.at(-1)).toBe("[block 0 line 3] … 950000 more lines not shown");
  });
});
