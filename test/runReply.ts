/**
 * Runs a whole reply through the real protocol parser and the real executor
 * in Node, the way the agent and the realm do in the browser, and returns what
 * the realm reported. Used by contract tests of the prompt and demo scripts.
 */
import { createProtocolParser } from "../src/protocol/parser";
import type { ExecEvent } from "../src/wire/events";
import { createExecutor, type Executor, type ExecutorOptions } from "../workers/realm/executor/executor";

export interface ReplyRun {
  events: ExecEvent[];
  logs: string[];
  errors: string[];
  protocolErrors: string[];
}

export function createSession(globals: ExecutorOptions["globals"] = {}) {
  const events: ExecEvent[] = [];
  const executor: Executor = createExecutor({
    globals: { sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)), ...globals },
    onEvent: (event) => events.push(event),
    loopBudgetMs: 500,
  });

  async function run(reply: string, chunkSize = 5): Promise<ReplyRun> {
    const start = events.length;
    const parser = createProtocolParser();
    const kinds = new Map<number, string>();
    const protocolErrors: string[] = [];
    executor.beginReply();
    const route = (items: ReturnType<typeof parser.push>) => {
      for (const event of items) {
        if (event.type === "block-start") {
          kinds.set(event.index, event.kind);
          if (event.kind === "code") executor.openCode(event.index, event.line);
          if (event.kind === "data") executor.openData(event.index, event.id, event.line);
        } else if (event.type === "block-delta") {
          if (kinds.get(event.index) === "code") executor.pushCode(event.index, event.text);
          if (kinds.get(event.index) === "data") executor.pushData(event.index, event.text);
        } else if (event.type === "block-end") {
          if (kinds.get(event.index) === "code") executor.endCode(event.index, event.unterminated);
          if (kinds.get(event.index) === "data") executor.endData(event.index, event.unterminated);
        } else {
          protocolErrors.push(event.message);
        }
      }
    };
    for (let at = 0; at < reply.length; at += chunkSize) route(parser.push(reply.slice(at, at + chunkSize)));
    route(parser.end());
    await executor.idle();
    const mine = events.slice(start);
    return {
      events: mine,
      logs: mine.flatMap((event) => (event.type === "console" ? [event.text] : [])),
      errors: mine.flatMap((event) =>
        event.type === "error" ? [event.error.message] : event.type === "statement-end" && event.error ? [event.error.message] : [],
      ),
      protocolErrors,
    };
  }

  return { run, executor, events };
}
