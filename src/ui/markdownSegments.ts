/**
 * Bounds on rendering one message's Markdown (issue: one huge reply froze the
 * page on import and at every start). Parsing a block costs far more than
 * its length (micromark's resolvers are quadratic on one long paragraph full
 * of delimiters), so:
 *
 * - a message longer than PROGRESSIVE_FROM_CHARS is cut into segments of
 *   about SEGMENT_CHARS at blank lines outside code fences, rendered one
 *   segment per task (Markdown.tsx), never all in one;
 * - where no such cut comes within MAX_SEGMENT_CHARS (one enormous paragraph
 *   or fence), the text is cut at a line break, or inside the line, and the
 *   pieces on either side of such a cut are shown as plain text;
 * - a single block longer than PARSE_LIMIT_CHARS is shown as plain text.
 *
 * Pure; the concatenation of the segments is the text.
 */
export const PROGRESSIVE_FROM_CHARS = 16_000;
export const SEGMENT_CHARS = 6_000;
export const MAX_SEGMENT_CHARS = 12_000;
export const PARSE_LIMIT_CHARS = 10_000;

export interface Segment {
  text: string;
  /** Cut where Markdown's structure may continue: shown as written, not parsed. */
  plain: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function segmentText(text: string): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let current = 0;
  /** The segment being built began at a hard cut. */
  let startedHard = false;
  let fence: string | undefined;
  const cut = (end: number, hard: boolean) => {
    if (end <= start) return;
    segments.push({ text: text.slice(start, end), plain: startedHard || hard });
    start = end;
    startedHard = hard;
  };
  while (current < text.length) {
    const newline = text.indexOf("\n", current);
    const lineEnd = newline < 0 ? text.length : newline + 1;
    const line = text.slice(current, newline < 0 ? text.length : newline);
    const open = FENCE.exec(line);
    if (fence === undefined && open) fence = open[1];
    else if (
      fence !== undefined &&
      open &&
      open[1][0] === fence[0] &&
      open[1].length >= fence.length &&
      line.trim() === open[1]
    )
      fence = undefined;
    // A line longer than a segment: pieces of it, plain.
    if (lineEnd - current > MAX_SEGMENT_CHARS) {
      cut(current, true);
      for (let piece = current; piece < lineEnd; piece += MAX_SEGMENT_CHARS)
        cut(Math.min(lineEnd, piece + MAX_SEGMENT_CHARS), true);
      current = lineEnd;
      continue;
    }
    const size = lineEnd - start;
    if (fence === undefined && line.trim() === "" && size >= SEGMENT_CHARS) cut(lineEnd, false);
    else if (size > MAX_SEGMENT_CHARS) cut(current, true);
    current = lineEnd;
  }
  if (start < text.length) segments.push({ text: text.slice(start), plain: startedHard });
  return segments;
}
