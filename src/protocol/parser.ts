import { parseFenceHeader } from "./header";
import { ThinkingSection } from "./thinking";
import type { BlockKind, CodeLanguage, ProtocolEvent, ProtocolParser } from "./types";

const LF = 10;
const CR = 13;
const TAB = 9;
const SPACE = 32;
const BACKTICK = 96;
const TILDE = 126;

/** Indentation strings, indexed by width; widths never exceed 3 here. */
const SPACES = ["", " ", "  ", "   "];

/**
 * Where the cursor is. Each state handles one kind of character and names the
 * next state. Samples show the cursor as `|`.
 */
type State =
  /** Text, at a line start, inside the 0–3 spaces an opener may have: `  |```tsx` */
  | "textLineStart"
  /** Text, inside the marker run of a possible opener: ``` ``|`tsx ``` */
  | "textOpenerRun"
  /** Text, after a 3+ marker run, in the info string (held to end of line): ```` ```tsx ag|ent.run ```` */
  | "textOpenerInfo"
  /** Text, in a line that can no longer open a fence; streams straight out: `Hel|lo` */
  | "textLine"
  /** Inside a fence (agent or ordinary), at a line start, in the 0–3 spaces a closer may have: `  |```` */
  | "fenceLineStart"
  /** Inside a fence, in the marker run of a possible closer: ``` `|`` ``` */
  | "fenceCloserRun"
  /** Inside a fence, after a long enough closing run, where only spaces and tabs may follow: ```` ```  | ```` */
  | "fenceCloserTail"
  /** Inside a fence, in a body line that is known not to be a closer: `  con|st x = 1;` */
  | "fenceLine"
  /** `end()` was called. */
  | "ended";

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * Creates an incremental parser for one reply (DESIGN.md §1). Feed it chunks
 * as they stream in, then call `end()` once.
 *
 * Invariants:
 * 1. Chunk invariance: for any text and any way to cut it into chunks, the
 *    blocks (index, kind, lang, id, line, unterminated), the concatenation of
 *    each block's deltas and the `protocol-error` events are the same. Only
 *    the way bytes are spread over deltas differs.
 * 2. Blocks never overlap: `block-start`, its deltas, then exactly one
 *    `block-end`, before the next `block-start`. Indexes are 0, 1, 2, … in
 *    reply order. After `end()`, every started block has ended.
 * 3. Every line ending (LF, CRLF, lone CR, also a CR and LF in different
 *    chunks) comes out as "\n", in every block. Other characters come out
 *    exactly as written, except that agent fence lines and the opener's
 *    indentation inside agent bodies are removed. Concatenating text blocks and
 *    the fences around agent bodies rebuilds the reply modulo line endings,
 *    the stripped indentation and dropped whitespace-only text.
 * 4. Text made only of spaces, tabs and line endings between two agent blocks
 *    (or before the first, or after the last) is not a block; once a text run
 *    holds any other character, it is one block that includes its leading
 *    whitespace. So indexes depend only on visible content.
 * 5. Bytes are released as soon as they are certain: a text line as soon as
 *    it cannot open an agent fence (an opener candidate is held to its end of
 *    line, where its info string is complete); a body line as soon as it
 *    cannot be the closing fence (only a line-start prefix like "  ``" is
 *    held). A chunk ending in the first half of a surrogate pair holds that
 *    half, so no delta ever splits a pair the input did not split. At the
 *    reply's start, leading whitespace and a possible opening tag (at most
 *    `<thinking`) are held until they can or cannot open a thinking section;
 *    inside one, only a possible closing tag (`</think`) is held.
 * 8. A leading thinking section (`thinking.ts`) comes out as thinking
 *    events before any block; nothing in it is protocol. Replies without one
 *    parse exactly as if the stage were not there.
 * 6. Work per chunk is proportional to the chunk's length (plus the length of
 *    held bytes released by it, each released once): nothing already seen is
 *    scanned again.
 * 7. Expected problems are events, never exceptions: a malformed agent header
 *    is a `protocol-error` (code `malformed-header`) and the fence stays in the
 *    text as an ordinary fence. Calling `push` or `end` after `end` is a bug
 *    and throws.
 *
 * Recognition is by line, without tracking Markdown containers: an agent fence
 * is a line that starts with 0–3 spaces and 3+ backticks or tildes, as
 * DESIGN.md states the rule. So a fence behind `>` or a list marker on its
 * own line, or indented 4+ spaces (nested deeper in a list, or an indented code
 * block), is ordinary text and is neither run nor reported; a list item's fence
 * continued with 2–3 spaces ("1. Step\n   ```tsx agent.run") is recognised and
 * its indentation removed from body lines, which is what a model writing a
 * numbered walkthrough means. Ordinary fences at 0–3 spaces are tracked, so an
 * agent header shown as an example inside a ```` ```markdown ```` fence is
 * content, not a block.
 */
export function createProtocolParser(): ProtocolParser {
  return new FenceMachine();
}

/**
 * Characters the parser examined so far, including held bytes it released.
 * Lets tests assert invariant 6 by counting work instead of timing it.
 */
export function charactersExamined(parser: ProtocolParser): number {
  if (!(parser instanceof FenceMachine)) throw new TypeError("not a parser made by createProtocolParser");
  return parser.examined;
}

class FenceMachine implements ProtocolParser {
  examined = 0;

  /** The leading thinking section's stage; dropped once the answer began. */
  private thinking: ThinkingSection | undefined = new ThinkingSection();

  private state: State = "textLineStart";
  /** Line of the reply the cursor is on, from 1. */
  private line = 1;
  /** The last character consumed was a CR: an LF right after it is the same line ending. */
  private afterCarriageReturn = false;
  /** First half of a surrogate pair that ended the previous chunk. */
  private pendingHighSurrogate = "";

  private events: ProtocolEvent[] = [];
  /** Bytes for the open block not yet put in an event. */
  private delta = "";
  private nextIndex = 0;
  /** Index of the open block, or -1. */
  private blockIndex = -1;
  private blockKind: BlockKind | null = null;

  /** Whitespace of the current text run, held until a visible character makes it a block. */
  private pendingWhitespace = "";
  /** Line the current text run began on. */
  private textRunLine = 1;

  // The current line's possible fence: indentation, marker and run length so far.
  private lineIndent = 0;
  private runCode = 0;
  private runLength = 0;
  /** Opener candidate's info string so far (raw, untrimmed). */
  private info = "";
  /** Closer candidate's trailing spaces and tabs (held only in agent bodies). */
  private closerTail = "";

  // The open fence, agent or ordinary.
  private fenceAgent = false;
  private fenceCode = 0;
  private fenceLength = 0;
  private fenceIndent = 0;
  private fenceOpen = false;

  push(chunk: string): ProtocolEvent[] {
    if (this.state === "ended") throw new Error("protocol parser: push() after end()");
    if (this.pendingHighSurrogate !== "") {
      chunk = this.pendingHighSurrogate + chunk;
      this.pendingHighSurrogate = "";
    }
    if (chunk.length > 0 && isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) {
      this.pendingHighSurrogate = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
    }
    if (this.thinking) chunk = this.feedThinking(chunk, false);
    this.scan(chunk);
    return this.takeEvents();
  }

  end(): ProtocolEvent[] {
    if (this.state === "ended") throw new Error("protocol parser: end() called twice");
    if (this.pendingHighSurrogate !== "") {
      // A lone high surrogate at the very end: pass it through as written.
      const rest = this.thinking ? this.feedThinking(this.pendingHighSurrogate, false) : this.pendingHighSurrogate;
      this.pendingHighSurrogate = "";
      this.scan(rest);
    }
    if (this.thinking) this.scan(this.feedThinking("", true));
    let closedByFence = false;
    switch (this.state) {
      case "textLineStart":
        if (this.lineIndent > 0) this.emitText(SPACES[this.lineIndent]);
        break;
      case "textOpenerRun":
        if (this.runLength >= 3) this.resolveOpener(false);
        else this.emitText(SPACES[this.lineIndent] + this.runText());
        break;
      case "textOpenerInfo":
        this.resolveOpener(false);
        break;
      case "fenceLineStart":
        this.releaseCloserCandidate();
        break;
      case "fenceCloserRun":
        if (this.runLength >= this.fenceLength) closedByFence = true;
        else this.releaseCloserCandidate();
        break;
      case "fenceCloserTail":
        closedByFence = true;
        break;
      case "textLine":
      case "fenceLine":
        break;
      default: {
        const unreachable: never = this.state;
        throw new Error(`protocol parser: unknown state ${String(unreachable)}`);
      }
    }
    if (closedByFence) this.closeFence();
    if (this.blockIndex >= 0) this.endBlock(this.fenceOpen);
    this.fenceOpen = false;
    this.state = "ended";
    return this.takeEvents();
  }

  /**
   * The reply's start goes through the thinking stage first; what it hands
   * back is the answer (or text that was not a thinking section after all).
   * Thinking events always precede block events: no block is open yet.
   */
  private feedThinking(chunk: string, atEnd: boolean): string {
    const section = this.thinking!;
    const before = section.examined;
    let answer = section.feed(chunk, this.events);
    if (atEnd) answer += section.end(this.events);
    this.examined += section.examined - before;
    if (section.done) this.thinking = undefined;
    return answer;
  }

  private takeEvents(): ProtocolEvent[] {
    if (this.events.length === 0) {
      // The common case while streaming: one delta. An exact-size array, and
      // `this.events` stays as it is for the next chunk.
      if (this.delta === "") return [];
      const text = this.delta;
      this.delta = "";
      return [{ type: "block-delta", index: this.blockIndex, text }];
    }
    this.flushDelta();
    const events = this.events;
    this.events = [];
    return events;
  }

  private scan(chunk: string): void {
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (this.afterCarriageReturn) {
        this.afterCarriageReturn = false;
        if (chunk.charCodeAt(i) === LF) {
          i++;
          this.examined++;
          continue;
        }
      }
      switch (this.state) {
        case "textLineStart": {
          // |```tsx agent.run      |Hello      |    indented code
          const code = chunk.charCodeAt(i);
          this.examined++;
          if (code === SPACE && this.lineIndent < 3) {
            this.lineIndent++;
            i++;
          } else if (code === BACKTICK || code === TILDE) {
            this.runCode = code;
            this.runLength = 1;
            this.state = "textOpenerRun";
            i++;
          } else {
            // A 4th space, a tab, a line ending or any other character: this
            // line cannot open a fence. `textLine` takes the character.
            if (this.lineIndent > 0) this.emitText(SPACES[this.lineIndent]);
            this.lineIndent = 0;
            this.state = "textLine";
          }
          break;
        }
        case "textOpenerRun": {
          // ``|`tsx agent.run
          const start = i;
          while (i < length && chunk.charCodeAt(i) === this.runCode) i++;
          this.examined += i - start;
          this.runLength += i - start;
          if (i === length) break;
          if (this.runLength >= 3) {
            this.info = "";
            this.state = "textOpenerInfo";
          } else {
            this.emitText(SPACES[this.lineIndent] + this.runText());
            this.lineIndent = 0;
            this.state = "textLine";
          }
          break;
        }
        case "textOpenerInfo": {
          // ```tsx ag|ent.run
          const start = i;
          const stopAtBacktick = this.runCode === BACKTICK;
          let code = 0;
          while (i < length) {
            code = chunk.charCodeAt(i);
            if (code === LF || code === CR || (code === BACKTICK && stopAtBacktick)) break;
            i++;
          }
          this.examined += i - start;
          if (i > start) this.info += chunk.slice(start, i);
          if (i === length) break;
          if (code === BACKTICK) {
            // A backtick in a backtick fence's info string: not a fence but a
            // code span at a line start (```` ```a``` ````). Plain text line.
            this.examined += this.info.length;
            this.emitText(SPACES[this.lineIndent] + this.runText() + this.info);
            this.info = "";
            this.lineIndent = 0;
            this.state = "textLine";
            break;
          }
          this.resolveOpener(true);
          this.endLine(code);
          i++;
          break;
        }
        case "textLine": {
          // Hel|lo
          const start = i;
          let code = 0;
          while (i < length) {
            code = chunk.charCodeAt(i);
            if (code === LF || code === CR) break;
            i++;
          }
          this.examined += i - start;
          if (i === length) {
            if (i > start) this.emitText(chunk.slice(start, i));
            break;
          }
          this.emitText(code === LF ? chunk.slice(start, i + 1) : chunk.slice(start, i) + "\n");
          this.endLine(code);
          this.state = "textLineStart";
          i++;
          break;
        }
        case "fenceLineStart": {
          //   |```      |const x = 1;
          const code = chunk.charCodeAt(i);
          this.examined++;
          if (code === SPACE && this.lineIndent < 3) {
            this.lineIndent++;
            if (!this.fenceAgent) this.delta += " ";
            i++;
          } else if (code === this.fenceCode) {
            this.runLength = 1;
            if (!this.fenceAgent) this.delta += chunk[i];
            this.state = "fenceCloserRun";
            i++;
          } else {
            // Not a closer; `fenceLine` takes the character.
            this.releaseCloserCandidate();
            this.state = "fenceLine";
          }
          break;
        }
        case "fenceCloserRun": {
          // `|``
          const start = i;
          while (i < length && chunk.charCodeAt(i) === this.fenceCode) i++;
          this.examined += i - start;
          this.runLength += i - start;
          if (!this.fenceAgent && i > start) this.delta += chunk.slice(start, i);
          if (i === length) break;
          if (this.runLength >= this.fenceLength) {
            this.closerTail = "";
            this.state = "fenceCloserTail";
          } else {
            this.releaseCloserCandidate();
            this.state = "fenceLine";
          }
          break;
        }
        case "fenceCloserTail": {
          // ```  |
          const start = i;
          let code = 0;
          while (i < length) {
            code = chunk.charCodeAt(i);
            if (code !== SPACE && code !== TAB) break;
            i++;
          }
          this.examined += i - start;
          if (i > start) {
            if (this.fenceAgent) this.closerTail += chunk.slice(start, i);
            else this.delta += chunk.slice(start, i);
          }
          if (i === length) break;
          if (code === LF || code === CR) {
            if (!this.fenceAgent) this.delta += "\n";
            this.closeFence();
            this.endLine(code);
            i++;
          } else {
            // ```` ```js ```` inside a body: a closer cannot carry an info string.
            this.releaseCloserCandidate();
            this.state = "fenceLine";
          }
          break;
        }
        case "fenceLine": {
          // con|st x = 1;
          const start = i;
          let code = 0;
          while (i < length) {
            code = chunk.charCodeAt(i);
            if (code === LF || code === CR) break;
            i++;
          }
          this.examined += i - start;
          if (i === length) {
            if (i > start) this.delta += chunk.slice(start, i);
            break;
          }
          this.delta += code === LF ? chunk.slice(start, i + 1) : chunk.slice(start, i) + "\n";
          this.endLine(code);
          this.lineIndent = 0;
          this.state = "fenceLineStart";
          i++;
          break;
        }
        case "ended":
          throw new Error("protocol parser: input after end()");
        default: {
          const unreachable: never = this.state;
          throw new Error(`protocol parser: unknown state ${String(unreachable)}`);
        }
      }
    }
  }

  /** A line ending was consumed: count the line, remember a CR for a following LF. */
  private endLine(code: number): void {
    this.line++;
    if (code === CR) this.afterCarriageReturn = true;
  }

  private runText(): string {
    return (this.runCode === BACKTICK ? "`" : "~").repeat(this.runLength);
  }

  /**
   * The opener candidate's line is complete (`atLineEnd`) or the stream ended
   * on it. Decide: agent block, or an ordinary fence in the text (reported if
   * its header looks like a broken agent header).
   */
  private resolveOpener(atLineEnd: boolean): void {
    const openerLine = this.line;
    const info = this.info;
    this.examined += info.length;
    const header = parseFenceHeader(info);
    this.fenceCode = this.runCode;
    this.fenceLength = this.runLength;
    this.fenceIndent = this.lineIndent;
    this.fenceOpen = true;
    if (header.kind === "code" || header.kind === "data") {
      this.fenceAgent = true;
      this.endText();
      if (header.kind === "code") this.startBlock("code", openerLine + 1, header.lang, undefined);
      else this.startBlock("data", openerLine + 1, undefined, header.id);
    } else {
      this.fenceAgent = false;
      this.emitText(SPACES[this.lineIndent] + this.runText() + info + (atLineEnd ? "\n" : ""));
      if (header.kind === "malformed") {
        this.flushDelta();
        this.events.push({
          type: "protocol-error",
          code: "malformed-header",
          message: header.message,
          line: openerLine,
          info: info.trim(),
        });
      }
    }
    this.info = "";
    this.lineIndent = 0;
    this.state = "fenceLineStart";
  }

  /**
   * The line held in `fenceLineStart`/`fenceCloserRun`/`fenceCloserTail` turned
   * out to be content. Agent bodies get it now, minus up to the opener's
   * indentation; ordinary fences already streamed it.
   */
  private releaseCloserCandidate(): void {
    if (this.fenceAgent) {
      const kept = this.lineIndent - this.fenceIndent;
      let held = kept > 0 ? SPACES[kept] : "";
      if (this.state !== "fenceLineStart") {
        held += (this.fenceCode === BACKTICK ? "`" : "~").repeat(this.runLength) + this.closerTail;
      }
      this.examined += held.length;
      this.delta += held;
    }
    this.lineIndent = 0;
    this.runLength = 0;
    this.closerTail = "";
  }

  /** The closing fence line is complete: end the agent block, or leave the ordinary fence. */
  private closeFence(): void {
    if (this.fenceAgent) {
      this.endBlock(false);
      this.textRunLine = this.line + 1;
    }
    this.fenceOpen = false;
    this.fenceAgent = false;
    this.lineIndent = 0;
    this.runLength = 0;
    this.closerTail = "";
    this.state = "textLineStart";
  }

  /** Text outside agent blocks; starts a text block at its first visible character. */
  private emitText(text: string): void {
    if (this.blockKind === "text") {
      this.delta += text;
      return;
    }
    let visible = false;
    for (let k = 0; k < text.length; k++) {
      const code = text.charCodeAt(k);
      if (code !== SPACE && code !== TAB && code !== LF) {
        visible = true;
        break;
      }
    }
    this.examined += text.length;
    if (!visible) {
      this.pendingWhitespace += text;
      return;
    }
    this.startBlock("text", this.textRunLine, undefined, undefined);
    this.delta = this.pendingWhitespace + text;
    this.pendingWhitespace = "";
  }

  /** An agent opener ends the current text run, whether or not it became a block. */
  private endText(): void {
    if (this.blockKind === "text") this.endBlock(false);
    this.pendingWhitespace = "";
  }

  private startBlock(kind: BlockKind, line: number, lang: CodeLanguage | undefined, id: string | undefined): void {
    // Invariant 2; one comparison per block, cheap enough to keep in production.
    if (this.blockIndex >= 0) throw new Error("protocol parser: a block started while another is open");
    const index = this.nextIndex++;
    this.blockIndex = index;
    this.blockKind = kind;
    if (kind === "code") this.events.push({ type: "block-start", index, kind, lang: lang as CodeLanguage, line });
    else if (kind === "data") this.events.push({ type: "block-start", index, kind, id: id as string, line });
    else this.events.push({ type: "block-start", index, kind, line });
  }

  private endBlock(unterminated: boolean): void {
    this.flushDelta();
    this.events.push({ type: "block-end", index: this.blockIndex, unterminated });
    this.blockIndex = -1;
    this.blockKind = null;
  }

  private flushDelta(): void {
    if (this.delta === "") return;
    this.events.push({ type: "block-delta", index: this.blockIndex, text: this.delta });
    this.delta = "";
  }
}
