/**
 * Test and bench support (not part of the realm bundle): the protocol's
 * BlockEvents (src/wire/types.ts) for feeding `executor.handleBlock` by
 * hand, as the parser would emit them.
 *
 * ```ts
 * executor.handleBlock(codeStart(0, 1));
 * executor.handleBlock(delta(0, "console.log(1)\n"));
 * executor.handleBlock(blockEnd(0));
 * for (const event of codeBlock(1, "let x = 1\n", { chunkSize: 3 })) executor.handleBlock(event);
 * ```
 */
import type { BlockEvent } from "../../../src/wire/types";

/** A code fence opens; `line`: the reply line of its first body line. */
export function codeStart(index: number, line = 1): BlockEvent {
  return { type: "block-start", index, kind: "code", line };
}

/** A data fence into the target `id` opens. */
export function dataStart(index: number, id: string, line = 1): BlockEvent {
  return { type: "block-start", index, kind: "data", id, line };
}

export function delta(index: number, text: string): BlockEvent {
  return { type: "block-delta", index, text };
}

/** The fence closes (`unterminated`: the stream ended first; `cut`: the reply was cut in it). */
export function blockEnd(index: number, options: { unterminated?: boolean; cut?: boolean } = {}): BlockEvent {
  const event: BlockEvent = { type: "block-end", index, unterminated: options.unterminated ?? false };
  if (options.cut !== undefined) event.cut = options.cut;
  return event;
}

function pieces(text: string | readonly string[], chunkSize: number): readonly string[] {
  if (typeof text !== "string") return text;
  if (!Number.isFinite(chunkSize)) return [text];
  const parts: string[] = [];
  for (let offset = 0; offset < text.length; offset += chunkSize) parts.push(text.slice(offset, offset + chunkSize));
  return parts;
}

interface WholeBlockOptions {
  line?: number;
  /** Deltas of this many characters (default: one delta); ignored when the text comes as chunks already. */
  chunkSize?: number;
}

/** A whole code block: start, its text as deltas, end. */
export function codeBlock(
  index: number,
  code: string | readonly string[],
  options: WholeBlockOptions = {},
): BlockEvent[] {
  const deltas = pieces(code, options.chunkSize ?? Number.POSITIVE_INFINITY).map((text) => delta(index, text));
  return [codeStart(index, options.line), ...deltas, blockEnd(index)];
}

/** A whole data block into `id`: start, its text as deltas, end. */
export function dataBlock(
  index: number,
  id: string,
  data: string | readonly string[],
  options: WholeBlockOptions = {},
): BlockEvent[] {
  const deltas = pieces(data, options.chunkSize ?? Number.POSITIVE_INFINITY).map((text) => delta(index, text));
  return [dataStart(index, id, options.line), ...deltas, blockEnd(index)];
}
