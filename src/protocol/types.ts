/**
 * Events of the incremental protocol parser (DESIGN.md §1).
 *
 * One reply is a sequence of blocks, each announced by `block-start`, grown by
 * zero or more `block-delta`s and closed by exactly one `block-end`, in order,
 * never overlapping. Block indexes count from 0 in reply order across all
 * kinds. Concatenating the deltas of a block gives the same bytes whatever the
 * chunking of the input (chunk invariance).
 *
 * - `text` blocks hold ordinary Markdown, including ordinary (non-agent)
 *   fences with their fence lines, exactly as written. Text between agent
 *   blocks that is only whitespace (spaces, tabs, line endings) is not a
 *   block, so indexes depend only on visible content.
 * - `code` and `data` blocks hold only the body: the lines between the opening
 *   and the closing fence lines, without the fences themselves, each line with
 *   its "\n" (so "```tsx agent.run\nf()\n```" has the body "f()\n"). Up to
 *   the opener's indentation (0–3 spaces) is removed from each body line.
 * - Line endings (LF, CRLF, lone CR) are normalised to "\n" in every block.
 * - `line` is the 1-based line of the reply on which the block's first body
 *   line sits (for code/data, even when the body is empty) or the block's
 *   first line (for text).
 */
export type BlockKind = "text" | "code" | "data";

export type CodeLanguage = "tsx" | "ts" | "typescript" | "jsx" | "js";

export type BlockStart =
  | { type: "block-start"; index: number; kind: "text"; line: number }
  | { type: "block-start"; index: number; kind: "code"; lang: CodeLanguage; line: number }
  | { type: "block-start"; index: number; kind: "data"; id: string; line: number };

/** The opening tag of a thinking section: `<think>` or `<thinking>`. */
export type ThinkingTag = "think" | "thinking";

/**
 * A leading thinking section (a reasoning model's drafts): `<think>` or
 * `<thinking>` at the very start of the reply, possibly after whitespace, up
 * to the matching closing tag. Emitted before any block; nothing inside is
 * protocol (a fence there is thinking text, never a block). Block lines count
 * from the answer's first visible line after the section, so they match the
 * text the model is shown of its reply in later turns (`splitThinking`).
 * `thinking-end.unterminated`: the stream ended inside the section.
 */
export type ThinkingEvent =
  | { type: "thinking-start"; tag: ThinkingTag }
  | { type: "thinking-delta"; text: string }
  | { type: "thinking-end"; unterminated: boolean };

export type ProtocolEvent =
  | ThinkingEvent
  | BlockStart
  | { type: "block-delta"; index: number; text: string }
  /**
   * `unterminated`: the stream ended before the closing fence — of the agent
   * fence for code/data, of an ordinary fence left open at the end of a text
   * block.
   */
  /** `cut` is never set by the parser: the agent adds it when the reply was cut inside the block (src/wire/types.ts). */
  | { type: "block-end"; index: number; unterminated: boolean; cut?: boolean }
  /**
   * A fence whose info string starts with `agent.` or mentions
   * `agent.run`/`agent.data` but does not parse. The fence is shown as an
   * ordinary fence inside the surrounding text block, and reported. `line` is
   * the fence line; `info` the info string, trimmed. Emitted right after the
   * text delta that holds the fence line.
   */
  | { type: "protocol-error"; code: "malformed-header"; message: string; line: number; info: string };

export interface ProtocolParser {
  /** Feed the next chunk; returns the events it made certain. */
  push(chunk: string): ProtocolEvent[];
  /** End of stream: flush and close whatever is open. */
  end(): ProtocolEvent[];
}
