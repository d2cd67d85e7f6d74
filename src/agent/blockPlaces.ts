import type { BlockView } from "./reply";

/**
 * Where something happened in a reply, as the person reads it. The model
 * and the executor count blocks from 0 with text blocks included and lines
 * from the top of the reply ("block 1, line 31"); the person sees code
 * blocks numbered from 1 among code blocks and each block's lines numbered
 * from 1, as its gutter does ("code block 1, line 28"). Pure.
 */

type Placed = Pick<BlockView, "index" | "kind" | "line">;

/** "code block 2" / "data block 1" for the block at reply index `index`; undefined for a text block or an unknown index. */
export function blockLabel(blocks: readonly Placed[], index: number): string | undefined {
  const block = blocks.find((candidate) => candidate.index === index);
  if (!block || block.kind === "text") return undefined;
  const ordinal = blocks.filter((candidate) => candidate.kind === block.kind && candidate.index <= index).length;
  return `${block.kind} block ${ordinal}`;
}

/** The block's own line (1-based, as its gutter numbers it) for reply line `replyLine`; undefined outside the block. */
export function blockLine(blocks: readonly Placed[], index: number, replyLine: number): number | undefined {
  const block = blocks.find((candidate) => candidate.index === index);
  if (!block || block.kind === "text" || replyLine < block.line) return undefined;
  return replyLine - block.line + 1;
}

/** "code block 1, line 28" (or "code block 1" when the line is outside it); undefined for what the person cannot be pointed to. */
export function placeForPerson(blocks: readonly Placed[], index: number, replyLine?: number): string | undefined {
  const label = blockLabel(blocks, index);
  if (!label) return undefined;
  const line = replyLine === undefined ? undefined : blockLine(blocks, index, replyLine);
  return line === undefined ? label : `${label}, line ${line}`;
}

/**
 * The feedback and error wording the model reads, renumbered for the person:
 * `block B, line L` / `[block B line L]` / `block B from line L to M` /
 * `block B (…), at line L` / `block B: lines L–M` / `block B` become the
 * block's own numbers. A reference to a block the reply does not have, or
 * to a line outside the block, is left as it is.
 */
export function forPerson(text: string, blocks: readonly Placed[]): string {
  return renumber(text, (index) => {
    const label = blockLabel(blocks, index);
    const block = blocks.find((candidate) => candidate.index === index);
    return label && block ? { label, line: block.line } : undefined;
  });
}

/** `forPerson` for text about one block whose person-facing ordinal is known (its error, under it). */
export function forPersonInBlock(text: string, block: Placed & { kind: "code" | "data" }, ordinal: number): string {
  return renumber(text, (index) =>
    index === block.index ? { label: `${block.kind} block ${ordinal}`, line: block.line } : undefined,
  );
}

function renumber(text: string, resolve: (index: number) => { label: string; line: number } | undefined): string {
  return text.replace(
    /\b(?:code |data )?block (\d+)(?:( \([^)]*\))?(,? at line |,? line |: lines? | from line )(\d+)(?:( to |–)(\d+))?)?/g,
    (
      whole: string,
      blockText: string,
      aside: string | undefined,
      joiner: string | undefined,
      lineText: string | undefined,
      rangeJoiner: string | undefined,
      endText: string | undefined,
    ) => {
      const found = resolve(Number(blockText));
      if (!found) return whole;
      const { label } = found;
      if (joiner === undefined || lineText === undefined) return label;
      const own = (replyLine: number) => (replyLine >= found.line ? replyLine - found.line + 1 : undefined);
      const line = own(Number(lineText));
      const end = endText === undefined ? undefined : own(Number(endText));
      if (line === undefined || (endText !== undefined && end === undefined)) return whole;
      // "(code)" only said what the label now says.
      const kept = aside && aside !== " (code)" ? aside : "";
      return `${label}${kept}${joiner.replace(/^(,? )line $/, ", line ")}${line}${end === undefined ? "" : `${rangeJoiner}${end}`}`;
    },
  );
}

/** The status line's words for a running statement: "statement 2 of code block 1, line 5". */
export function runningDetail(
  blocks: readonly Placed[],
  running: { block: number; statement: number; line: number },
): string {
  const place = placeForPerson(blocks, running.block, running.line) ?? `block ${running.block}, line ${running.line}`;
  return `statement ${running.statement + 1} of ${place}`;
}
