/**
 * Bounds on rendering one message's Markdown (issue: one huge reply froze the
 * page on import and at every start). Parsing a block costs far more than
 * its length (micromark's resolvers are quadratic on one long paragraph full
 * of delimiters), so:
 *
 * - a message longer than PROGRESSIVE_FROM_CHARS is cut into segments of
 *   about SEGMENT_CHARS at blank lines outside code fences, each parsed
 *   on its own, once it nears the view (Markdown.tsx), never all in one;
 * - where no such cut comes within MAX_SEGMENT_CHARS (one enormous paragraph
 *   or fence), the text is cut at a line break, or inside the line, and the
 *   pieces on either side of such a cut are shown as plain text;
 * - a single block longer than PARSE_LIMIT_CHARS is shown as plain text.
 *
 * Pure; the concatenation of the segments is the text. A growing text (a
 * streaming reply) is cut again only after its last cut at a blank line
 * (`segmentGrowingText`), so a frame of a long streaming reply does not scan
 * the whole of it.
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
  return segmentGrowingText(text).segments;
}

/** A text's segments, and where cutting a longer text that starts with it may resume. */
export interface Segmentation {
  text: string;
  segments: Segment[];
  /**
   * The last cut after a whole blank line: up to there the segments of any text that starts with `text` are
   * these (`count` of them), and the cutting goes on from `at` as from a text's start.
   */
  resume: { at: number; count: number };
}

/**
 * `segmentText` for a text that grows (a streaming reply): given the segmentation of an earlier text that
 * this one starts with, only the text after its last cut at a blank line is cut again, and the segments
 * before are the same objects (what renders them can skip them). The result is the same as
 * `segmentText(text)`'s.
 */
export function segmentGrowingText(text: string, previous?: Segmentation): Segmentation {
  const grown = previous !== undefined && text.length >= previous.text.length && text.startsWith(previous.text);
  const segments: Segment[] = grown ? previous.segments.slice(0, previous.resume.count) : [];
  let resume = grown ? previous.resume : { at: 0, count: 0 };
  let start = resume.at;
  let current = start;
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
    if (fence === undefined && line.trim() === "" && size >= SEGMENT_CHARS) {
      cut(lineEnd, false);
      // The state after a whole line depends on the text up to it only: a later, longer text resumes here.
      if (newline >= 0) resume = { at: lineEnd, count: segments.length };
    } else if (size > MAX_SEGMENT_CHARS) cut(current, true);
    current = lineEnd;
  }
  if (start < text.length) segments.push({ text: text.slice(start), plain: startedHard });
  return { text, segments, resume };
}
