import type { ProtocolEvent, CodeLanguage } from "../protocol/types";
import type { ConsoleLevel, ExecError, ExecEvent } from "../wire/events";

/**
 * The view of one assistant reply: its blocks as the protocol parser cut
 * them, and what the realm did with each. Pure data, updated by
 * `applyProtocolEvent` / `applyExecEvent`, which return new objects only for
 * what changed (so React can skip untouched blocks).
 */

export type StatementStatus = "pending" | "running" | "done" | "error" | "skipped";

export interface StatementView {
  statement: number;
  /** Reply lines (1-based). */
  line: number;
  endLine: number;
  source: string;
  status: StatementStatus;
  error?: ExecError;
  /** At most MAX_LOG_LINES_PER_STATEMENT lines (the first ones); see `omitted`. */
  logs: { level: ConsoleLevel; text: string }[];
  /** Lines printed beyond `logs` and not kept (shown as "N more lines not shown"). */
  omitted?: number;
}

/**
 * Console lines kept per statement, in the view and in storage. The realm
 * sends at most as many (workers/realm/runtime/createConsoleLimiter.ts); the
 * host bounds them again because the realm runs model-written code.
 */
export const MAX_LOG_LINES_PER_STATEMENT = 500;

/** "N more lines not shown" for a statement's omitted count. */
export function omittedLinesText(omitted: number): string {
  return `${omitted.toLocaleString("en-US")} more line${omitted === 1 ? "" : "s"} not shown`;
}

export type BlockStatus = "streaming" | "queued" | "running" | "done" | "error" | "skipped";

export type BlockView =
  | { index: number; kind: "text"; line: number; text: string }
  | {
      index: number;
      kind: "code";
      lang: CodeLanguage;
      line: number;
      source: string;
      closed: boolean;
      unterminated: boolean;
      status: BlockStatus;
      statements: StatementView[];
      /** Lines (in the reply) from which code was skipped, if any. */
      skippedFromLine?: number;
      error?: ExecError;
      /**
       * The model's code, when the person edited the block and ran it
       * (Edit code): `source` is then theirs, and everything that re-runs
       * the session (Revive) runs it.
       */
      original?: string;
      /** A block before it that it reads from was edited and run again since this one ran (Run again). */
      stale?: boolean;
    }
  | {
      index: number;
      kind: "data";
      id: string;
      line: number;
      source: string;
      closed: boolean;
      unterminated: boolean;
      status: BlockStatus;
      error?: ExecError;
    };

/** A UI the reply's code mounted, shown after the block that was running. */
export interface ReplyMount {
  mountId: string;
  /** Block index that was running when it opened (-1: none, show at the end). */
  afterBlock: number;
  title?: string;
}

/**
 * A reasoning model's thinking: a leading `<think>`/`<thinking>` section of
 * the reply, or the provider's separate reasoning stream. Shown apart from
 * the answer, stored and exported with the reply, never run and never sent
 * back to the model.
 */
export interface ThinkingView {
  /** Where it came from: the tag that opened it in the reply, or the provider's reasoning stream. */
  source: "think" | "thinking" | "provider";
  text: string;
  /** The section (or the reasoning stream) has ended. */
  closed: boolean;
  /** The reply ended inside it. */
  unterminated: boolean;
  /** Clock times (ms) of its first and last part, for "Thought for N s". */
  startedAt?: number;
  endedAt?: number;
}

export interface ReplyView {
  /** The reply's thinking, if the model showed any. */
  thinking?: ThinkingView;
  blocks: BlockView[];
  mounts?: ReplyMount[];
  /** Malformed agent fences reported by the parser. */
  protocolErrors: { line: number; info: string; message: string }[];
  /** Realm errors that belong to no block (uncaught async throws, resets). */
  notices: string[];
}

export function emptyReply(): ReplyView {
  return { blocks: [], protocolErrors: [], notices: [] };
}

function replaceBlock(reply: ReplyView, index: number, update: (block: BlockView) => BlockView): ReplyView {
  // From the end: the block a delta or an exec event names is nearly always one of the last (a long reply has hundreds).
  let position = reply.blocks.length - 1;
  while (position >= 0 && reply.blocks[position].index !== index) position -= 1;
  if (position < 0) return reply;
  const blocks = reply.blocks.slice();
  blocks[position] = update(blocks[position]);
  return { ...reply, blocks };
}

/** The provider's reasoning stream opens the thinking view the same way a `<think>` tag does. */
export type ProviderThinkingStart = { type: "thinking-start"; tag: "provider" };

export function applyProtocolEvent(reply: ReplyView, event: ProtocolEvent | ProviderThinkingStart): ReplyView {
  switch (event.type) {
    case "block-start": {
      const block: BlockView =
        event.kind === "text"
          ? { index: event.index, kind: "text", line: event.line, text: "" }
          : event.kind === "code"
            ? {
                index: event.index,
                kind: "code",
                lang: event.lang,
                line: event.line,
                source: "",
                closed: false,
                unterminated: false,
                status: "streaming",
                statements: [],
              }
            : {
                index: event.index,
                kind: "data",
                id: event.id,
                line: event.line,
                source: "",
                closed: false,
                unterminated: false,
                status: "streaming",
              };
      return { ...reply, blocks: [...reply.blocks, block] };
    }
    case "block-delta":
      return replaceBlock(reply, event.index, (block) =>
        block.kind === "text"
          ? { ...block, text: block.text + event.text }
          : { ...block, source: block.source + event.text },
      );
    case "block-end":
      return replaceBlock(reply, event.index, (block) =>
        block.kind === "text"
          ? block
          : {
              ...block,
              closed: true,
              unterminated: event.unterminated,
              status: block.status === "streaming" ? "queued" : block.status,
            },
      );
    case "protocol-error":
      return {
        ...reply,
        protocolErrors: [...reply.protocolErrors, { line: event.line, info: event.info, message: event.message }],
      };
    case "thinking-start":
      // Provider reasoning and a tag section in one reply share one view.
      return {
        ...reply,
        thinking: reply.thinking
          ? {
              ...reply.thinking,
              source: event.tag,
              closed: false,
              text: reply.thinking.text === "" ? "" : `${reply.thinking.text}\n\n`,
            }
          : { source: event.tag, text: "", closed: false, unterminated: false },
      };
    case "thinking-delta":
      return reply.thinking
        ? { ...reply, thinking: { ...reply.thinking, text: reply.thinking.text + event.text } }
        : reply;
    case "thinking-end":
      return reply.thinking
        ? { ...reply, thinking: { ...reply.thinking, closed: true, unterminated: event.unterminated } }
        : reply;
    default: {
      const never: never = event;
      return never;
    }
  }
}

function replaceStatement(
  reply: ReplyView,
  blockIndex: number,
  statement: number,
  update: (statement: StatementView) => StatementView,
): ReplyView {
  return replaceBlock(reply, blockIndex, (block) => {
    if (block.kind !== "code") return block;
    const position = block.statements.findIndex((item) => item.statement === statement);
    if (position < 0) return block;
    const statements = block.statements.slice();
    statements[position] = update(statements[position]);
    return { ...block, statements };
  });
}

export function applyExecEvent(reply: ReplyView, event: ExecEvent): ReplyView {
  switch (event.type) {
    case "statement-start":
      return replaceBlock(reply, event.block, (block) =>
        block.kind !== "code"
          ? block
          : {
              ...block,
              status: "running",
              statements: [
                ...block.statements.filter((item) => item.statement !== event.statement),
                {
                  statement: event.statement,
                  line: event.line,
                  endLine: event.endLine,
                  source: event.source,
                  status: "running",
                  logs: [],
                },
              ],
            },
      );
    case "statement-end": {
      const next = replaceStatement(reply, event.block, event.statement, (statement) => ({
        ...statement,
        status: event.status,
        error: event.error,
      }));
      if (event.status !== "error") return next;
      return replaceBlock(next, event.block, (block) =>
        block.kind === "text" ? block : { ...block, status: "error", error: event.error },
      );
    }
    case "console":
      // Each line copies at most MAX_LOG_LINES_PER_STATEMENT entries; past the
      // cap a line costs a counter, so output is linear in the line count.
      return replaceStatement(reply, event.block, event.statement, (statement) => {
        const omitted =
          (event.omitted ?? 0) +
          (event.omitted === undefined && statement.logs.length >= MAX_LOG_LINES_PER_STATEMENT ? 1 : 0);
        if (omitted > 0) return { ...statement, omitted: (statement.omitted ?? 0) + omitted };
        if (event.omitted !== undefined) return statement;
        return { ...statement, logs: [...statement.logs, { level: event.level, text: event.text }] };
      });
    case "skipped":
      return replaceBlock(reply, event.block, (block) =>
        block.kind === "text"
          ? block
          : {
              ...block,
              status: block.status === "error" ? "error" : "skipped",
              ...(block.kind === "code" ? { skippedFromLine: event.fromLine } : {}),
            },
      );
    case "error": {
      const { error } = event;
      const next = replaceBlock(reply, error.block, (block) =>
        block.kind === "text" ? block : { ...block, status: "error", error },
      );
      return next;
    }
    case "block-done":
      return replaceBlock(reply, event.block, (block) =>
        block.kind === "text" || block.status === "error" || block.status === "skipped"
          ? block
          : { ...block, status: "done" },
      );
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * A reply that ended while its code was under way, without the realm's word
 * on it (the session was switched away from it, the page was closed): the
 * statement that was running reads as Stop's abort reports one ("Stopped",
 * its block in error), and the blocks that had not run read as skipped.
 * Blocks that ended keep their status.
 */
export function endUnfinished(reply: ReplyView): ReplyView {
  let changed = false;
  const blocks = reply.blocks.map((block): BlockView => {
    if (
      block.kind === "text" ||
      !(block.status === "running" || block.status === "queued" || block.status === "streaming")
    )
      return block;
    changed = true;
    const running =
      block.kind === "code" ? block.statements.find((statement) => statement.status === "running") : undefined;
    if (block.kind !== "code") return { ...block, status: "skipped" };
    // The lines after the last statement that started did not run (Stop's abort reports them skipped too).
    const skippedFromLine = block.statements.reduce(
      (from, statement) => Math.max(from, statement.endLine + 1),
      block.line + 1,
    );
    if (!running) return { ...block, status: "skipped", skippedFromLine };
    const error: ExecError = {
      code: "aborted",
      name: "AbortError",
      message: "Stopped",
      block: block.index,
      line: running.line,
    };
    return {
      ...block,
      status: "error",
      error,
      skippedFromLine,
      statements: block.statements.map((statement) =>
        statement.status === "running" ? { ...statement, status: "error", error } : statement,
      ),
    };
  });
  return changed ? { ...reply, blocks } : reply;
}

/** The statement currently running, if any (for "Running (statement k)"). */
export function runningStatement(reply: ReplyView): { block: number; statement: number; line: number } | undefined {
  for (let position = reply.blocks.length - 1; position >= 0; position -= 1) {
    const block = reply.blocks[position];
    if (block.kind !== "code") continue;
    const running = block.statements.find((statement) => statement.status === "running");
    if (running) return { block: block.index, statement: running.statement, line: running.line };
  }
  return undefined;
}
