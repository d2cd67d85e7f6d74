/**
 * What Continue tells the model about the cut reply: plainly why and where
 * it was cut, what ran and what did not (finishReason.ts names the cuts).
 * Pure; loaded by dynamic import with the first Continue (agent.ts), so it is
 * not part of the JavaScript the page needs before the composer works.
 */
import { cutOfReply, type CutReason } from "./finishReason";
import type { BlockView, ReplyView } from "./reply";
import type { ChatMessage } from "./types";

/** Last reply line a block reached (its first line when empty). */
function lastLine(first: number, text: string): number {
  let breaks = 0;
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) breaks++;
  if (text.endsWith("\n")) breaks--;
  return first + Math.max(0, breaks);
}

function blockLastLine(block: BlockView): number {
  return lastLine(block.line, block.kind === "text" ? block.text : block.source);
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Where the reply stopped, e.g. "in block 2 (code), at line 14". */
export function describeCutPoint(reply: ReplyView): string {
  const last = reply.blocks[reply.blocks.length - 1];
  if (!last) {
    if (reply.thinking && (reply.thinking.unterminated || !reply.thinking.closed))
      return "inside your thinking section, before any of the answer was written";
    return "before any of the answer was written";
  }
  const line = blockLastLine(last);
  if (last.kind === "text") return `in the text at line ${line}`;
  if (last.kind === "data") return `in block ${last.index} (the data block for "${last.id}"), at line ${line}`;
  return `in block ${last.index} (code), at line ${line}`;
}

/**
 * What ran and what did not, block by block, as the model reads it. The last
 * block is the one the cut went through: statements that ran there are
 * named by line, and the first line that did not run.
 */
export function describeCutProgress(reply: ReplyView): { ran: string[]; notRun: string[] } {
  const ran: string[] = [];
  const notRun: string[] = [];
  const lastIndex = reply.blocks[reply.blocks.length - 1]?.index;
  for (const block of reply.blocks) {
    if (block.kind === "text") continue;
    const cutHere = block.index === lastIndex && (block.unterminated || !block.closed);
    if (block.kind === "data") {
      if (cutHere)
        notRun.push(
          `block ${block.index}: the data for "${block.id}" was cut; its target keeps the last complete value`,
        );
      else ran.push(`block ${block.index}: the data for "${block.id}" streamed in full`);
      continue;
    }
    const done = block.statements.filter((statement) => statement.status === "done");
    const failed = block.statements.filter((statement) => statement.status === "error");
    if (!cutHere) {
      if (block.statements.length > 0) {
        ran.push(
          `block ${block.index}: ${plural(done.length, "statement")} ran${failed.length ? `, ${failed.length} threw (see above)` : ""}`,
        );
      }
      if (block.status === "skipped" && block.skippedFromLine !== undefined)
        notRun.push(`block ${block.index} from line ${block.skippedFromLine} (skipped after an error)`);
      continue;
    }
    if (done.length > 0) {
      const from = Math.min(...done.map((statement) => statement.line));
      const to = Math.max(...done.map((statement) => statement.endLine));
      ran.push(
        `block ${block.index}: ${from === to ? `line ${from}` : `lines ${from}–${to}`} (${plural(done.length, "statement")})`,
      );
    }
    const stoppedAt = firstLineNotRun(block);
    const end = blockLastLine(block);
    if (stoppedAt !== undefined && stoppedAt <= end) {
      const afterError = failed.length > 0 && failed[failed.length - 1].line < stoppedAt;
      notRun.push(
        afterError
          ? `block ${block.index} from line ${stoppedAt} (after the error above)`
          : `block ${block.index} ${stoppedAt === end ? `at line ${end}` : `from line ${stoppedAt} to ${end}`}, where the reply was cut: that statement is incomplete`,
      );
    }
  }
  return { ran, notRun };
}

/** The first line of a cut code block that did not run (undefined: everything in it ran). */
function firstLineNotRun(block: Extract<BlockView, { kind: "code" }>): number | undefined {
  const ranThrough = block.statements
    .filter((statement) => statement.status === "done" || statement.status === "error")
    .reduce((line, statement) => Math.max(line, statement.endLine), block.line - 1);
  const running = block.statements.find(
    (statement) => statement.status === "running" || statement.status === "pending",
  );
  if (running) return running.line;
  if (block.skippedFromLine !== undefined) return Math.max(block.skippedFromLine, ranThrough + 1);
  if (block.error?.code === "syntax" && block.error.line !== undefined) return ranThrough + 1;
  const end = blockLastLine(block);
  // A tail that parsed at the cut ran as a statement; otherwise it is left.
  return ranThrough >= end ? undefined : ranThrough + 1;
}

const REASON_WORDS: Record<CutReason, string> = {
  length: "was cut at the token limit (the provider stopped it at the maximum output length)",
  "content-filter": "was stopped by the provider's content filter",
  disconnected: "was cut off mid-stream because the connection dropped",
  "provider-error": "was cut off mid-stream because the provider reported an error",
  closed: "was cut off mid-stream because the page was closed while it streamed",
};

/**
 * The note that goes to the model with Continue: plainly why and where the
 * reply was cut, what ran and what did not, and to go on without repeating
 * what ran.
 */
export function cutFeedback(reply: ReplyView, reason: CutReason, providerMessage?: string): string {
  const lines: string[] = [];
  const why = REASON_WORDS[reason] + (reason === "provider-error" && providerMessage ? ` (${providerMessage})` : "");
  lines.push(`Your previous reply ${why}, ${describeCutPoint(reply)}.`);
  const { ran, notRun } = describeCutProgress(reply);
  if (ran.length > 0) lines.push(`What ran: ${ran.join("; ")}.`);
  else if (reply.blocks.some((block) => block.kind === "code")) lines.push("What ran: none of its code.");
  if (notRun.length > 0) lines.push(`What did not run: ${notRun.join("; ")}.`);
  if (reply.thinking && (reply.thinking.unterminated || !reply.thinking.closed) && reply.blocks.length === 0) {
    lines.push("Nothing in the thinking section runs or is shown as your answer.");
  }
  const advice =
    reason === "length"
      ? " Keep it shorter: split long code or data over several blocks or replies."
      : reason === "content-filter"
        ? " Leave out or rephrase what the filter may have objected to."
        : "";
  lines.push(
    `Continue from where it stopped, without repeating what already ran: its variables and mounts still exist. Start a new code block for the rest.${advice}`,
  );
  return lines.join("\n");
}

/** What Continue tells the model: the cut reply's output so far, then why and where it was cut. */
export function continueFeedback(messages: readonly ChatMessage[], interruptedFeedback: string): string {
  const cut = [...messages].reverse().find((message) => message.role === "assistant");
  const note =
    cut?.role === "assistant"
      ? cutFeedback(cut.reply, cutOfReply(cut) ?? "closed")
      : "The previous reply was cut off mid-stream. Continue from where it stopped; code that already ran keeps its effects, do not repeat it.";
  return interruptedFeedback ? `${interruptedFeedback}\n${note}` : note;
}
