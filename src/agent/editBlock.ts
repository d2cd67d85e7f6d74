import type { BlockView, ReplyView } from "./reply";
import type { ChatMessage } from "./types";

/**
 * Edit code and re-run (issue 29 §2), the pure parts: the block as it runs
 * again, the mounts it takes over, the blocks after it, and what the model
 * is told at its next turn. The run itself is `Runner.runBlock`.
 */

export type CodeBlockView = Extract<BlockView, { kind: "code" }>;

/** Where a code block is: its reply and its index in that reply. */
export interface BlockRef {
  replyId: string;
  index: number;
}

/** The longest edited code kept (and accepted from an import). */
export const MAX_EDITED_CODE_CHARS = 200_000;

/**
 * The block about to run `code`: its results cleared; the model's code kept
 * in `original` while the code differs from it (editing back to the
 * original makes it the model's block again).
 */
export function blockToRun(block: CodeBlockView, code: string): CodeBlockView {
  const original = block.original ?? block.source;
  const next: CodeBlockView = {
    index: block.index,
    kind: "code",
    lang: block.lang,
    line: block.line,
    source: code,
    closed: true,
    unterminated: false,
    status: "queued",
    statements: [],
  };
  if (code !== original) next.original = original;
  return next;
}

/**
 * The mounts a block made, in order (what a re-run of it takes over), then
 * the reply's other titled mounts, to take over by title only: a mount is
 * shown after the block that ran when its first frame reached the page,
 * which may be a later one.
 */
export function blockMounts(
  reply: ReplyView,
  index: number,
): { mountId: string; title?: string; titleOnly?: boolean }[] {
  const others = (reply.mounts ?? [])
    .filter((mount) => mount.afterBlock !== index && mount.title !== undefined)
    .map((mount) => ({ mountId: mount.mountId, title: mount.title, titleOnly: true }));
  return (reply.mounts ?? [])
    .filter((mount) => mount.afterBlock === index)
    .map((mount) =>
      mount.title !== undefined ? { mountId: mount.mountId, title: mount.title } : { mountId: mount.mountId },
    )
    .concat(others);
}

/** Every code block of the session after `ref`, in order, with the code it runs now. */
export function codeBlocksAfter(messages: readonly ChatMessage[], ref: BlockRef): { ref: BlockRef; code: string }[] {
  const after: { ref: BlockRef; code: string }[] = [];
  let seen = false;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.reply.blocks) {
      if (block.kind !== "code") continue;
      if (seen) after.push({ ref: { replyId: message.id, index: block.index }, code: block.source });
      else if (message.id === ref.replyId && block.index === ref.index) seen = true;
    }
  }
  return after;
}

/** The messages with `update` applied to one code block (the same array when it is not there). */
export function updateCodeBlock(
  messages: readonly ChatMessage[],
  ref: BlockRef,
  update: (block: CodeBlockView) => CodeBlockView,
): ChatMessage[] {
  return messages.map((message) => {
    if (message.id !== ref.replyId || message.role !== "assistant") return message;
    const blocks = message.reply.blocks.map((block) =>
      block.kind === "code" && block.index === ref.index ? update(block) : block,
    );
    return { ...message, reply: { ...message.reply, blocks } };
  });
}

/** The block's number as the person sees it ("Code block N": its index in the reply). */
export function findCodeBlock(messages: readonly ChatMessage[], ref: BlockRef): CodeBlockView | undefined {
  const message = messages.find((item) => item.id === ref.replyId);
  if (message?.role !== "assistant") return undefined;
  const block = message.reply.blocks.find((item) => item.index === ref.index);
  return block?.kind === "code" ? block : undefined;
}

/**
 * A unified diff of two texts by lines (the hunks with 2 lines of context),
 * or undefined when they are too long to compare cheaply.
 */
export function unifiedDiff(before: string, after: string, context = 2): string | undefined {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > 4_000_000) return undefined;
  // Longest common subsequence, from the end.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1)
    for (let j = b.length - 1; j >= 0; j -= 1)
      lcs[i * width + j] =
        a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
  const lines: { kind: " " | "-" | "+"; text: string; a: number; b: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: " ", text: a[i], a: i, b: j });
      i += 1;
      j += 1;
    } else if (i < a.length && (j >= b.length || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      // Removals before additions, as diff prints them.
      lines.push({ kind: "-", text: a[i], a: i, b: j });
      i += 1;
    } else {
      lines.push({ kind: "+", text: b[j], a: i, b: j });
      j += 1;
    }
  }
  const changed = lines.map((line, index) => (line.kind !== " " ? index : -1)).filter((index) => index >= 0);
  if (changed.length === 0) return "";
  const out: string[] = [];
  let start = 0;
  while (start < changed.length) {
    let end = start;
    while (end + 1 < changed.length && changed[end + 1] - changed[end] <= context * 2 + 1) end += 1;
    const from = Math.max(0, changed[start] - context);
    const to = Math.min(lines.length - 1, changed[end] + context);
    const hunk = lines.slice(from, to + 1);
    const oldCount = hunk.filter((line) => line.kind !== "+").length;
    const newCount = hunk.filter((line) => line.kind !== "-").length;
    out.push(`@@ -${hunk[0].a + 1},${oldCount} +${hunk[0].b + 1},${newCount} @@`);
    for (const line of hunk) out.push(`${line.kind}${line.text}`);
    start = end + 1;
  }
  return out.join("\n");
}

/**
 * What the model is told at its next turn (as runtime output) after the
 * person ran block N with their own code: the new code, or a unified diff
 * from the model's code when that is shorter, and what the run printed or
 * threw. Without it the model would argue with code it did not write.
 */
export function editContext({
  block,
  original,
  code,
  output,
  failed,
}: {
  block: number;
  original: string;
  code: string;
  output: string;
  failed: boolean;
}): string {
  const lines = [
    code === original
      ? `The person ran code block ${block} of your reply again, unchanged, in the current realm (you were not called).`
      : `The person edited code block ${block} of your reply and ran it again in the current realm (you were not called). The block now holds their code, not yours.`,
  ];
  if (code !== original) {
    const diff = unifiedDiff(original, code);
    if (diff !== undefined && diff.length < code.length) lines.push(`Their change, as a diff from your code:`, diff);
    else lines.push(`Their code:`, code);
  }
  lines.push(
    failed
      ? "The run failed: the statements before the error ran and their effects stay in the realm; the rest did not run."
      : "The run finished.",
  );
  lines.push(output.trim() ? `What it printed or threw:\n${output.trim()}` : "It printed nothing.");
  return lines.join("\n");
}
