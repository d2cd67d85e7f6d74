import type { ProtocolEvent, ThinkingTag } from "./types";

const LF = 10;
const CR = 13;
const TAB = 9;
const SPACE = 32;

const OPEN_THINK = "<think>";
const OPEN_THINKING = "<thinking>";

/**
 * Where the cursor is in the part of a reply before its answer. Samples show
 * the cursor as `|`.
 */
type State =
  /** Before anything visible; whitespace is held: `\n  |<think>` */
  | "lead"
  /** Inside a possible opening tag: `<thi|nk>` */
  | "openTag"
  /** Inside the thinking section; its text streams out: `<think>Let me dra|ft` */
  | "inside"
  /** Inside a possible closing tag: `draft</thi|nk>` */
  | "closeTag"
  /** After the closing tag, in blank space that is dropped: `</think>\n\n|Here is` */
  | "afterClose"
  /** The answer: everything goes to the fence machine. */
  | "answer";

const isBlank = (code: number): boolean => code === SPACE || code === TAB || code === LF || code === CR;

/**
 * The thinking section a reasoning model may put at the very start of its
 * reply: `<think>` or `<thinking>`, possibly after whitespace, up to the
 * matching closing tag. An explicit state machine like the fence machine
 * (chunk-invariant, each character examined once, partial tags are state).
 *
 * `feed` returns the thinking events it made certain and the text that
 * belongs to the answer (to be parsed as protocol). Text that turns out not
 * to open a thinking section is handed back unchanged, held whitespace and
 * all, so a reply without one parses exactly as before. After a thinking
 * section, blank lines are dropped up to the answer's first visible line
 * (keeping that line's indentation), so the answer's line 1 is that line:
 * the same text the model is shown of its reply in later turns.
 *
 * Inside the section nothing is protocol: a fence there is thinking text,
 * never a block. Line endings in thinking text are normalised to "\n".
 */
export class ThinkingSection {
  private state: State = "lead";
  /** Held text: lead whitespace and a partial opening tag, or the current blank line's spaces after the closer. */
  private held = "";
  /** Characters of the opening tag matched so far (`<thi` is 4). */
  private tagLength = 0;
  /** The closing tag being matched, and how much of it has arrived. */
  private closer = "";
  private closerMatched = 0;
  private afterCarriageReturn = false;
  /** Characters examined (for the parser's linear-work invariant). */
  examined = 0;

  /** True once the answer began: the parser may bypass this stage. */
  get done(): boolean {
    return this.state === "answer";
  }

  feed(chunk: string, events: ProtocolEvent[]): string {
    let thinking = "";
    let answer = "";
    const length = chunk.length;
    let i = 0;
    scan: while (i < length) {
      switch (this.state) {
        case "lead": {
          //   |<think>
          const code = chunk.charCodeAt(i);
          this.examined++;
          if (isBlank(code)) {
            i++;
          } else if (code === OPEN_THINK.charCodeAt(0)) {
            this.state = "openTag";
            this.tagLength = 1;
            i++;
          } else {
            answer = this.held + chunk.slice(i);
            this.held = "";
            this.state = "answer";
            break scan;
          }
          this.held += chunk[i - 1];
          break;
        }
        case "openTag": {
          // <thi|nk>
          const code = chunk.charCodeAt(i);
          this.examined++;
          const position = this.tagLength;
          if (position === OPEN_THINK.length - 1 && code === OPEN_THINK.charCodeAt(position)) {
            this.openSection("think", events);
            i++;
          } else if (code === OPEN_THINKING.charCodeAt(position)) {
            i++;
            if (position === OPEN_THINKING.length - 1) {
              this.openSection("thinking", events);
            } else {
              this.held += chunk[i - 1];
              this.tagLength++;
            }
          } else {
            answer = this.held + chunk.slice(i);
            this.held = "";
            this.state = "answer";
            break scan;
          }
          break;
        }
        case "inside": {
          // Let me dra|ft
          const start = i;
          let code = 0;
          while (i < length) {
            code = chunk.charCodeAt(i);
            if (code === 60 /* < */ || code === CR || code === LF) break;
            i++;
          }
          this.examined += i - start;
          if (i > start) {
            this.afterCarriageReturn = false;
            thinking += chunk.slice(start, i);
          }
          if (i === length) break;
          this.examined++;
          i++;
          if (code === CR) {
            thinking += "\n";
            this.afterCarriageReturn = true;
          } else if (code === LF) {
            if (!this.afterCarriageReturn) thinking += "\n";
            this.afterCarriageReturn = false;
          } else {
            this.afterCarriageReturn = false;
            this.closerMatched = 1;
            this.state = "closeTag";
          }
          break;
        }
        case "closeTag": {
          // </thi|nk>
          const code = chunk.charCodeAt(i);
          if (code === this.closer.charCodeAt(this.closerMatched)) {
            this.examined++;
            i++;
            this.closerMatched++;
            if (this.closerMatched === this.closer.length) {
              this.closerMatched = 0;
              if (thinking !== "") events.push({ type: "thinking-delta", text: thinking });
              thinking = "";
              events.push({ type: "thinking-end", unterminated: false });
              this.state = "afterClose";
            }
          } else {
            // Not the closer: what matched is thinking text; the character is
            // looked at again in `inside` (it may start another `<`).
            thinking += this.closer.slice(0, this.closerMatched);
            this.closerMatched = 0;
            this.state = "inside";
          }
          break;
        }
        case "afterClose": {
          // </think>\n\n|Here is
          const code = chunk.charCodeAt(i);
          this.examined++;
          if (code === LF || code === CR) {
            this.held = "";
            i++;
          } else if (code === SPACE || code === TAB) {
            this.held += chunk[i];
            i++;
          } else {
            answer = this.held + chunk.slice(i);
            this.held = "";
            this.state = "answer";
            break scan;
          }
          break;
        }
        case "answer":
          answer = chunk.slice(i);
          break scan;
        default: {
          const unreachable: never = this.state;
          throw new Error(`thinking section: unknown state ${String(unreachable)}`);
        }
      }
    }
    if (thinking !== "") events.push({ type: "thinking-delta", text: thinking });
    return answer;
  }

  private openSection(tag: ThinkingTag, events: ProtocolEvent[]): void {
    this.closer = `</${tag}>`;
    this.held = "";
    this.state = "inside";
    events.push({ type: "thinking-start", tag });
  }

  /** End of stream: close an open section (unterminated) and hand back held text that was not a tag. */
  end(events: ProtocolEvent[]): string {
    switch (this.state) {
      case "lead":
      case "openTag": {
        const held = this.held;
        this.held = "";
        this.state = "answer";
        return held;
      }
      case "closeTag":
        events.push({ type: "thinking-delta", text: this.closer.slice(0, this.closerMatched) });
        events.push({ type: "thinking-end", unterminated: true });
        break;
      case "inside":
        events.push({ type: "thinking-end", unterminated: true });
        break;
      case "afterClose":
      case "answer":
        break;
      default: {
        const unreachable: never = this.state;
        throw new Error(`thinking section: unknown state ${String(unreachable)}`);
      }
    }
    this.held = "";
    this.state = "answer";
    return "";
  }
}

/**
 * A whole reply split into its leading thinking section and its answer, by
 * the same rules as the streaming parser. The answer is what the model is
 * shown of its own reply in later turns (providers ask that thinking is not
 * sent back).
 */
export function splitThinking(reply: string): { thinking: string | undefined; answer: string; unterminated: boolean } {
  const section = new ThinkingSection();
  const events: ProtocolEvent[] = [];
  let answer = section.feed(reply, events);
  answer += section.end(events);
  let thinking: string | undefined;
  let unterminated = false;
  for (const event of events) {
    if (event.type === "thinking-start") thinking = "";
    else if (event.type === "thinking-delta") thinking = (thinking ?? "") + event.text;
    else if (event.type === "thinking-end") unterminated = event.unterminated;
  }
  return { thinking, answer, unterminated };
}
