import type { CodeLanguage } from "./types";

/** What a fence's info string asks for. */
export type FenceHeader =
  | { kind: "code"; lang: CodeLanguage }
  | { kind: "data"; id: string }
  /** Looks like an agent header but does not parse: shown as an ordinary fence and reported. */
  | { kind: "malformed"; message: string }
  | { kind: "ordinary" };

// Whitespace inside an info string is spaces and tabs only: it is one line.
const CODE_HEADER = /^(tsx|ts|typescript|jsx|js)[ \t]+agent\.run$/;
const DATA_HEADER = /^json[ \t]+agent\.data[ \t]*=>[ \t]*(?:"([^"]+)"|'([^']+)')$/;

export const EXPECTED_HEADERS = '`tsx agent.run` (or ts, typescript, jsx, js) or `json agent.data => "id"`';

/**
 * Classifies a fence info string (raw, as written after the marker run).
 * Strict on purpose: the model is told exactly what it got wrong rather than
 * having near misses guessed at, so `TSX agent.run` and `tsx agent.run now`
 * are malformed, not code.
 */
export function parseFenceHeader(rawInfo: string): FenceHeader {
  const info = rawInfo.trim();
  const code = CODE_HEADER.exec(info);
  if (code !== null) return { kind: "code", lang: code[1] as CodeLanguage };
  const data = DATA_HEADER.exec(info);
  if (data !== null) return { kind: "data", id: data[1] ?? data[2] };
  if (info.startsWith("agent.") || info.includes("agent.run") || info.includes("agent.data")) {
    return {
      kind: "malformed",
      message: `Fence header "${info}" is not a valid agent header; expected ${EXPECTED_HEADERS}. The fence was shown as ordinary code and not run.`,
    };
  }
  return { kind: "ordinary" };
}
