import { useEffect, useRef, useState } from "react";
import { grammarFor } from "./codeLanguages";
import type { HighlightedLine } from "./highlight";
import { withNextRedraw } from "./redrawPacing";

/** While a block streams, it is highlighted at most this often. */
export const STREAMING_HIGHLIGHT_INTERVAL_MS = 200;

export interface Highlighted {
  /** Highlighted lines, valid for the first `validLines` lines of the current code. */
  lines: HighlightedLine[];
  validLines: number;
}

/**
 * Lines of `code` that a highlighting of `highlightedCode` still describes:
 * all of them when the code is unchanged; while it grows, every line of the
 * older text except its last (which may have been cut mid-token); none when
 * the text changed otherwise. The rest shows as plain text until the next
 * pass, so a streaming block never shows colours from a different text.
 */
export function validHighlightedLines(code: string, highlightedCode: string): number {
  if (code === highlightedCode) return Number.POSITIVE_INFINITY;
  if (!code.startsWith(highlightedCode)) return 0;
  return Math.max(0, highlightedCode.split("\n").length - 1);
}

/**
 * The worker's client, imported once (an `import()` per pass was a measurable
 * share of a stream's script); a failed import is tried again by the next pass.
 */
let client: Promise<typeof import("./highlightClient")> | undefined;
const loadClient = () =>
  (client ??= import("./highlightClient").catch((error: unknown) => {
    client = undefined;
    throw error;
  }));

/**
 * Highlights `code` in the background (shiki loads on first use). A
 * settled block is highlighted as soon as it is settled; a streaming one at
 * most every STREAMING_HIGHLIGHT_INTERVAL_MS, its newest lines plain until
 * then. Undefined while nothing is highlighted, or for languages without a
 * bundled grammar (shiki is then never loaded).
 */
export function useHighlight(code: string, lang: string | undefined, settled: boolean): Highlighted | undefined {
  const grammar = grammarFor(lang);
  const [result, setResult] = useState<{ code: string; lines: HighlightedLine[] } | undefined>();
  const latest = useRef(code);
  latest.current = code;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastRun = useRef(0);
  const requested = useRef(0);
  const applied = useRef(0);
  const alive = useRef(true);

  useEffect(() => {
    if (!grammar) return;
    if (timer.current !== undefined) {
      // A pass is already planned and reads the latest code when it runs; a settled block goes now.
      if (!settled) return;
      clearTimeout(timer.current);
    }
    const run = () => {
      timer.current = undefined;
      lastRun.current = Date.now();
      const text = latest.current;
      const id = ++requested.current;
      void loadClient()
        .then((module) => module.highlight(text, grammar))
        .then(
          (lines) => {
            if (!lines || !alive.current || id < applied.current) return;
            applied.current = id;
            // In a paced stream, drawn with its next redraw rather than as a frame of its own.
            withNextRedraw(() => {
              if (alive.current) setResult({ code: text, lines });
            });
          },
          // No highlighting (a chunk failed to load offline): the plain text stays.
          () => {},
        );
    };
    const wait = settled ? 0 : Math.max(0, lastRun.current + STREAMING_HIGHLIGHT_INTERVAL_MS - Date.now());
    timer.current = setTimeout(run, wait);
  }, [code, settled, grammar]);

  useEffect(() => {
    alive.current = true;
    return () => {
      // A pass resolving after unmount must not set state.
      alive.current = false;
      if (timer.current !== undefined) clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, []);

  if (!grammar || !result) return undefined;
  const validLines = validHighlightedLines(code, result.code);
  return validLines === 0 ? undefined : { lines: result.lines, validLines };
}
