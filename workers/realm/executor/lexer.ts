/**
 * Incremental lexer for the statement splitter.
 *
 * It does not produce a token stream: it tracks just enough of TypeScript/JSX
 * to know, for every character, whether the cursor is at the top level of the
 * block (outside strings, template literals, comments, regexes, JSX and
 * brackets), and reports three facts to its listener:
 *
 *   - a token starts at the top level (`tokenAtTop`, with its kind and the text
 *     seen so far) — the splitter decides with it whether a pending newline
 *     ended a statement;
 *   - a `;` at the top level (`semicolonAtTop`);
 *   - a newline at the top level (`newlineAtTop`), including one inside a
 *     multi-line comment, which ends a line for ASI as well.
 *
 * Invariants:
 *   1. Every input character is consumed once, except a token cut by a chunk
 *      boundary (an identifier, number or punctuator whose extent is not known
 *      yet): that token is carried and re-read with the next chunk. A carried
 *      token never contains a newline, so re-reading is bounded by its length.
 *   2. A regex that reaches a newline was a division after all (regex literals
 *      cannot span lines): the lexer re-reads that one line from the `/`.
 *   3. Feeding any text in any chunks produces the same events in the same order,
 *      except that `tokenAtTop` may fire more than once (incomplete, then
 *      complete) for a carried token.
 *   4. The lexer never looks at text it has finished with: chunks are scanned
 *      where they arrive, so the cost is linear in the input.
 */

export type TokenKind = "word" | "number" | "punct" | "string" | "template" | "regex" | "jsx";

export interface LexerListener {
  /**
   * A token starts with the bracket stack empty. `text` is the token so far:
   * complete for words, numbers and punctuators when `complete` is true; for
   * strings, templates, regexes and JSX only the opening character.
   */
  tokenAtTop(kind: TokenKind, text: string, start: number, complete: boolean): void;
  /**
   * After a value and a top-level newline, `/` and `<` are operators that
   * continue the line (`a⏎/ 2`), unless the line cannot continue: after
   * `let w` or `type T = A` they start a regex or JSX. The lexer asks.
   */
  startsStatement(operator: "/" | "<"): boolean;
  /** A `;` at the top level; `end` is the offset just after it. */
  semicolonAtTop(end: number): void;
  /**
   * A newline at the top level; `offset` is the newline's own offset, or the
   * start of the multi-line comment that contains it.
   */
  newlineAtTop(offset: number): void;
}

/** The last complete token that ended at the top level. */
export interface TopToken {
  kind: TokenKind;
  /** Token text for words and punctuators; empty for literals and JSX. */
  text: string;
  /** Offset just after the token. */
  end: number;
}

// Where the cursor is.
type Mode =
  | "code"
  | "lineComment"
  | "blockComment"
  | "string"
  | "template"
  | "regex"
  | "jsxTag" //          <div className="x" {...rest}>
  //                          ^ between `<` and `>` of an opening tag
  | "jsxAttributeString" // <a title="Don't; stop">
  //                                    ^
  | "jsxText" //         <p>Don't do this; ok</p>
  //                           ^ apostrophes and `;` are plain text here
  | "jsxClosingTag"; //  </p>
//                         ^

// Bracket stack frames. Numbers keep the stack a packed array of small ints.
const PAREN = 1;
const PAREN_AFTER_CONDITION = 2; // `if (` `while (` `for (` `with (`: a regex may follow its `)`
const BRACKET = 3;
const BRACE_OBJECT = 4;
const BRACE_BLOCK = 5; // a regex may follow its `}`
const TEMPLATE_EXPRESSION = 6; // `${` … `}` resumes the template
const JSX_ATTRIBUTE_EXPRESSION = 7; // `<a b={` … `}` resumes the tag
const JSX_CHILD_EXPRESSION = 8; // `<p>{` … `}` resumes the text
const JSX_ELEMENT = 9; // inside an element, until its closing tag

/** Words after which an expression (so a regex or JSX) may start. */
const KEYWORDS_BEFORE_EXPRESSION = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
  "extends",
]);

/** Words whose `(` opens a condition or loop header, not a call. */
const CONDITION_KEYWORDS = new Set(["if", "while", "for", "with"]);

export const PUNCTUATORS: ReadonlySet<string> = new Set([
  ">>>=",
  "===",
  "!==",
  "**=",
  "<<=",
  ">>=",
  ">>>",
  "...",
  "&&=",
  "||=",
  "??=",
  "=>",
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "??",
  "?.",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "**",
  "<<",
  ">>",
  "{",
  "}",
  "(",
  ")",
  "[",
  "]",
  ";",
  ",",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
  "&",
  "|",
  "^",
  "!",
  "~",
  "?",
  ":",
  "=",
  ".",
  "@",
  "#",
]);

/** Strings that a longer punctuator starts with: a chunk ending there must wait. */
const PUNCTUATOR_PREFIXES = new Set<string>();
for (const punctuator of PUNCTUATORS) {
  for (let length = 1; length < punctuator.length; length++) {
    PUNCTUATOR_PREFIXES.add(punctuator.slice(0, length));
  }
}

const NEWLINE = 10;
/** U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR end a line in JavaScript (ASI, line comments) but not in Markdown: no new reply line. */
const LINE_SEPARATOR = 0x2028;
const PARAGRAPH_SEPARATOR = 0x2029;

function isIdentifierStart(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    code === 36 || // $
    code === 95 || // _
    code === 92 || // \ (unicode escape)
    (code >= 128 && !isSpace(code))
  );
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || (code >= 48 && code <= 57);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Whitespace other than `\n` (bodies are normalised to `\n` upstream). */
function isSpace(code: number): boolean {
  return (
    code === 32 ||
    code === 9 ||
    code === 11 ||
    code === 12 ||
    code === 13 ||
    code === 0xa0 ||
    code === 0xfeff ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x1680 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

function isJsxNamePart(code: number): boolean {
  // `-` (aria-label), `:` (xlink:href), `.` (Foo.Bar)
  return isIdentifierPart(code) || code === 45 || code === 58 || code === 46;
}

export class Lexer {
  /** Offsets where lines start (line 1 starts at 0); one entry per newline seen. */
  readonly lineStarts: number[] = [0];
  /** The last token that ended at the top level, if any. */
  lastTop: TopToken | null = null;
  /** Offset just after the last character that is neither space nor comment. */
  lastEnd = 0;

  private mode: Mode = "code";
  private readonly stack: number[] = [];
  /** Whether a `/` here starts a regex and a `<` a JSX element. */
  private expressionAllowed = true;
  /** The previous token was `.` or `?.`: a word now is a property name. */
  private afterDot = false;
  /** The previous token, when it was a word (for `if (` and block detection). */
  private previousWord = "";
  /** The previous token, when it was a punctuator. */
  private previousPunctuator = "";
  private atStart = true;
  /** A top-level newline came after the last token. */
  private lineStartAtTop = false;

  private quote = 0;
  private escaped = false;
  private inRegexClass = false;
  private regexText = "";
  private regexStart = 0;
  private previousWasStar = false;
  private commentStart = 0;

  // Opening tag state, for telling `<T,>(x) => x` and `<T extends U>` from JSX.
  private jsxTagFromCode = false;
  private jsxTagWords = 0;
  private jsxWord = "";
  private jsxSelfClosing = false;

  /** Unconsumed text of a token cut by the chunk boundary, and its offset. */
  private carry = "";
  private carryStart = 0;
  private received = 0;

  constructor(private readonly listener: LexerListener) {}

  feed(delta: string): void {
    const start = this.carry ? this.carryStart : this.received;
    const input = this.carry + delta;
    this.carry = "";
    this.received += delta.length;
    this.scan(input, start, false);
  }

  /** The input ended: complete any carried token. */
  finish(): void {
    const input = this.carry;
    this.carry = "";
    this.scan(input, this.carryStart, true);
    if (this.mode === "regex") {
      // An unterminated regex at the end was a division too.
      this.scan(this.regexToDivision("", 0), this.regexStart + 1, true);
    }
  }

  private scan(input: string, base: number, atEnd: boolean): void {
    let i = 0;
    let n = input.length;
    while (i < n) {
      const code = input.charCodeAt(i);
      const from = i;
      const mode = this.mode;
      switch (mode) {
        case "code": {
          const next = this.scanCode(input, i, base, atEnd);
          if (next < 0) {
            this.carry = input.slice(i);
            this.carryStart = base + i;
            return;
          }
          i = next;
          break;
        }
        case "lineComment":
          // The line end is read as code.
          if (code === NEWLINE || code === LINE_SEPARATOR || code === PARAGRAPH_SEPARATOR) this.mode = "code";
          else i++;
          break;
        case "blockComment":
          if (code === NEWLINE) {
            this.addLine(base + i);
            // The statement ends before the comment: cutting inside it would
            // leave an unterminated comment in the text to parse.
            if (this.stack.length === 0) {
              this.lineStartAtTop = true;
              this.listener.newlineAtTop(this.commentStart);
            }
          } else if (code === 47 && this.previousWasStar) {
            this.mode = "code";
          }
          this.previousWasStar = code === 42;
          i++;
          break;
        case "string":
          if (this.escaped) {
            this.escaped = false;
            if (code === NEWLINE) this.addLine(base + i);
            i++;
          } else if (code === 92) {
            this.escaped = true;
            i++;
          } else if (code === this.quote) {
            i++;
            this.endLiteral("string", base + i);
          } else if (code === NEWLINE) {
            // Unterminated string: the parser will report it; resume as code so
            // that the newline can still end the statement.
            this.endLiteral("string", base + i);
          } else {
            i++;
          }
          break;
        case "template":
          if (this.escaped) {
            this.escaped = false;
            if (code === NEWLINE) this.addLine(base + i);
            i++;
          } else if (code === 92) {
            this.escaped = true;
            i++;
          } else if (code === 96) {
            i++;
            this.endLiteral("template", base + i);
          } else if (code === 36) {
            if (i + 1 >= n && !atEnd) {
              this.carry = input.slice(i);
              this.carryStart = base + i;
              return;
            }
            if (input.charCodeAt(i + 1) === 123) {
              this.stack.push(TEMPLATE_EXPRESSION);
              this.mode = "code";
              this.setPunctuator("${");
              i += 2;
            } else {
              i++;
            }
          } else {
            if (code === NEWLINE) this.addLine(base + i);
            i++;
          }
          break;
        case "regex":
          if (code === NEWLINE) {
            // `a / b` followed by a newline: it was a division. Re-read the line.
            input = this.regexToDivision(input, i);
            base = this.regexStart + 1;
            n = input.length;
            i = 0;
            break;
          }
          this.regexText += input[i];
          if (this.escaped) this.escaped = false;
          else if (code === 92) this.escaped = true;
          else if (code === 91) this.inRegexClass = true;
          else if (code === 93) this.inRegexClass = false;
          else if (code === 47 && !this.inRegexClass) {
            this.regexText = "";
            this.endLiteral("regex", base + i + 1);
          }
          i++;
          break;
        case "jsxTag":
          i = this.scanJsxTag(input, i, base);
          break;
        case "jsxAttributeString":
          if (code === NEWLINE) this.addLine(base + i);
          else if (code === this.quote) this.mode = "jsxTag";
          i++;
          break;
        case "jsxText":
          if (code === NEWLINE) {
            this.addLine(base + i);
            i++;
          } else if (code === 123) {
            this.stack.push(JSX_CHILD_EXPRESSION);
            this.mode = "code";
            this.setPunctuator("{");
            i++;
          } else if (code === 60) {
            if (i + 1 >= n && !atEnd) {
              this.carry = input.slice(i);
              this.carryStart = base + i;
              return;
            }
            const after = input.charCodeAt(i + 1);
            if (after === 47) {
              this.mode = "jsxClosingTag";
              i += 2;
            } else if (after === 62) {
              this.stack.push(JSX_ELEMENT); // fragment <>
              i += 2;
            } else {
              this.openJsxTag(false);
              i++;
            }
          } else {
            i++;
          }
          break;
        case "jsxClosingTag":
          if (code === NEWLINE) this.addLine(base + i);
          i++;
          if (code === 62) this.closeJsxElement(base + i);
          break;
        default: {
          const unreachable: never = mode;
          throw new Error(`lexer: unknown mode ${String(unreachable)}`);
        }
      }
      if (
        i > from &&
        mode !== "lineComment" &&
        mode !== "blockComment" &&
        this.mode !== "lineComment" &&
        this.mode !== "blockComment"
      ) {
        const last = input.charCodeAt(i - 1);
        if (last !== NEWLINE && !isSpace(last)) this.lastEnd = base + i;
      }
    }
  }

  /**
   * One step in code: whitespace, a newline, a comment opener or one token.
   * Returns the next index, or -1 when the token may continue in the next chunk.
   */
  private scanCode(input: string, i: number, base: number, atEnd: boolean): number {
    const n = input.length;
    const code = input.charCodeAt(i);
    const top = this.stack.length === 0;

    if (code === NEWLINE || code === LINE_SEPARATOR || code === PARAGRAPH_SEPARATOR) {
      if (code === NEWLINE) this.addLine(base + i);
      if (top) {
        this.lineStartAtTop = true;
        this.listener.newlineAtTop(base + i);
      }
      return i + 1;
    }
    if (isSpace(code)) return i + 1;

    if (isIdentifierStart(code)) {
      let end = i + 1;
      while (end < n && isIdentifierPart(input.charCodeAt(end))) end++;
      const word = input.slice(i, end);
      if (end === n && !atEnd) {
        if (top) this.tokenAtTop("word", word, base + i, false);
        return -1;
      }
      if (top) this.tokenAtTop("word", word, base + i, true);
      // After `.` a word is a property name (`map.delete`), not a keyword.
      const property = this.afterDot;
      this.setWord(word);
      if (top) this.lastTop = { kind: "word", text: property ? "" : word, end: base + end };
      return end;
    }

    if (isDigit(code) || (code === 46 && i + 1 < n && isDigit(input.charCodeAt(i + 1)))) {
      let end = i + 1;
      const hex = code === 48 && (input.charCodeAt(i + 1) | 32) === 120; // 0x
      while (end < n) {
        const part = input.charCodeAt(end);
        if (isIdentifierPart(part) || part === 46) end++;
        else if (
          (part === 43 || part === 45) &&
          !hex &&
          (input.charCodeAt(end - 1) | 32) === 101 // e+ e-
        )
          end++;
        else break;
      }
      const text = input.slice(i, end);
      if (end === n && !atEnd) {
        if (top) this.tokenAtTop("number", text, base + i, false);
        return -1;
      }
      if (top) this.tokenAtTop("number", text, base + i, true);
      this.setValue();
      if (top) this.lastTop = { kind: "number", text: "", end: base + end };
      return end;
    }

    if (code === 34 || code === 39) {
      if (top) this.tokenAtTop("string", input[i], base + i, true);
      this.mode = "string";
      this.quote = code;
      this.escaped = false;
      return i + 1;
    }
    if (code === 96) {
      if (top) this.tokenAtTop("template", "`", base + i, true);
      this.mode = "template";
      this.escaped = false;
      return i + 1;
    }

    if (code === 47) {
      // `/`: a comment, a regex or a division — the next character decides.
      if (i + 1 >= n && !atEnd) return -1;
      const after = input.charCodeAt(i + 1);
      if (after === 47) {
        this.mode = "lineComment";
        return i + 2;
      }
      if (after === 42) {
        this.mode = "blockComment";
        this.commentStart = base + i;
        this.previousWasStar = false;
        return i + 2;
      }
      if (this.expressionAllowed || (top && this.lineStartAtTop && this.listener.startsStatement("/"))) {
        if (top) this.tokenAtTop("regex", "/", base + i, true);
        this.mode = "regex";
        this.regexText = "/";
        this.regexStart = base + i;
        this.escaped = false;
        this.inRegexClass = false;
        return i + 1;
      }
    }

    if (code === 60 && (this.expressionAllowed || (top && this.lineStartAtTop))) {
      // `<` where an expression may start: JSX (`<div`, `<>`) or a comparison.
      if (i + 1 >= n && !atEnd) return -1;
      const after = input.charCodeAt(i + 1);
      if (
        (after === 62 || isIdentifierStart(after)) &&
        (this.expressionAllowed || this.listener.startsStatement("<"))
      ) {
        if (top) this.tokenAtTop("jsx", "<", base + i, true);
        if (after === 62) {
          this.stack.push(JSX_ELEMENT);
          this.mode = "jsxText";
          return i + 2;
        }
        this.openJsxTag(true);
        return i + 1;
      }
    }

    // A punctuator, longest match.
    const available = input.slice(i, i + 4);
    let length = Math.min(4, available.length);
    while (length > 1 && !PUNCTUATORS.has(available.slice(0, length))) length--;
    let punctuator = available.slice(0, length);
    if (!PUNCTUATORS.has(punctuator)) {
      // Unknown character (stray `\u0000`, `\``…): skip it, the parser reports it.
      return i + 1;
    }
    if (!atEnd && i + 4 > n && PUNCTUATOR_PREFIXES.has(available)) {
      // `+` could become `++`, `=` could become `===`: wait for the next chunk.
      if (top) this.tokenAtTop("punct", available, base + i, false);
      return -1;
    }
    if (punctuator === "?.") {
      // `a?.5:1` is a conditional, not optional chaining.
      if (i + 2 >= n && !atEnd) {
        if (top) this.tokenAtTop("punct", "?", base + i, false);
        return -1;
      }
      if (isDigit(input.charCodeAt(i + 2))) punctuator = "?";
    }
    if (top) this.tokenAtTop("punct", punctuator, base + i, true);
    const end = i + punctuator.length;
    this.punctuator(punctuator, base + end);
    return end;
  }

  private tokenAtTop(kind: TokenKind, text: string, start: number, complete: boolean): void {
    this.lineStartAtTop = false;
    this.listener.tokenAtTop(kind, text, start, complete);
  }

  private punctuator(punctuator: string, end: number): void {
    switch (punctuator) {
      case "(":
        this.stack.push(
          this.previousWord && CONDITION_KEYWORDS.has(this.previousWord) && !this.afterDot
            ? PAREN_AFTER_CONDITION
            : PAREN,
        );
        this.setPunctuator(punctuator);
        return;
      case "[":
        this.stack.push(BRACKET);
        this.setPunctuator(punctuator);
        return;
      case "{":
        this.stack.push(this.braceIsBlock() ? BRACE_BLOCK : BRACE_OBJECT);
        this.setPunctuator(punctuator);
        return;
      case ")":
      case "]": {
        const frame = this.popBracket();
        this.setValue();
        if (frame === PAREN_AFTER_CONDITION) this.expressionAllowed = true;
        break;
      }
      case "}": {
        const frame = this.stack[this.stack.length - 1];
        if (frame === TEMPLATE_EXPRESSION) {
          this.stack.pop();
          this.mode = "template";
          this.escaped = false;
          return;
        }
        if (frame === JSX_ATTRIBUTE_EXPRESSION) {
          this.stack.pop();
          this.mode = "jsxTag";
          return;
        }
        if (frame === JSX_CHILD_EXPRESSION) {
          this.stack.pop();
          this.mode = "jsxText";
          return;
        }
        this.popBracket();
        this.setValue();
        // After a block `}` a statement starts (so `/` is a regex); after an
        // object literal it is a division. A stray `}` counts as a block.
        this.expressionAllowed = frame !== BRACE_OBJECT && frame !== PAREN && frame !== BRACKET;
        this.previousPunctuator = "}";
        break;
      }
      case ";":
        this.setPunctuator(punctuator);
        if (this.stack.length === 0) {
          this.lastTop = { kind: "punct", text: ";", end };
          this.listener.semicolonAtTop(end);
        }
        return;
      default:
        this.setPunctuator(punctuator);
        // `x++ / 2`, `x! / 2`: after a postfix operator comes a division.
        if (punctuator === "++" || punctuator === "--") this.expressionAllowed = false;
        this.afterDot = punctuator === "." || punctuator === "?.";
        break;
    }
    if (this.stack.length === 0) this.lastTop = { kind: "punct", text: punctuator, end };
  }

  /**
   * Pops an ordinary bracket. Mismatched brackets pop anyway, so that the depth
   * comes back to zero and the parser gets to report the mistake early.
   */
  private popBracket(): number {
    const frame = this.stack[this.stack.length - 1];
    if (
      frame === PAREN ||
      frame === PAREN_AFTER_CONDITION ||
      frame === BRACKET ||
      frame === BRACE_OBJECT ||
      frame === BRACE_BLOCK
    ) {
      this.stack.pop();
      return frame;
    }
    return 0;
  }

  /** `{` after `)`, `=>`, `;`, a block, a type or at the start opens a block. */
  private braceIsBlock(): boolean {
    if (this.atStart) return true;
    if (this.previousWord) {
      return (
        this.afterDot ||
        !KEYWORDS_BEFORE_EXPRESSION.has(this.previousWord) ||
        this.previousWord === "else" ||
        this.previousWord === "do"
      );
    }
    switch (this.previousPunctuator) {
      case ")":
      case "=>":
      case ";":
      case "{":
      case "}":
      case ">":
        return true;
      default:
        return false;
    }
  }

  private setWord(word: string): void {
    this.expressionAllowed = !this.afterDot && KEYWORDS_BEFORE_EXPRESSION.has(word);
    this.previousWord = this.afterDot ? "" : word;
    this.previousPunctuator = "";
    this.afterDot = false;
    this.atStart = false;
  }

  private setPunctuator(punctuator: string): void {
    this.expressionAllowed = true;
    this.previousWord = "";
    this.previousPunctuator = punctuator;
    this.afterDot = false;
    this.atStart = false;
  }

  /** After a literal, `)`, `]` or JSX: a value, so `/` divides. */
  private setValue(): void {
    this.expressionAllowed = false;
    this.previousWord = "";
    this.previousPunctuator = ")";
    this.afterDot = false;
    this.atStart = false;
  }

  private endLiteral(kind: TokenKind, end: number): void {
    this.mode = "code";
    this.setValue();
    if (this.stack.length === 0) this.lastTop = { kind, text: "", end };
  }

  /** Turns the regex being read back into a `/` and returns the text to re-read. */
  private regexToDivision(input: string, i: number): string {
    const reread = this.regexText.slice(1) + input.slice(i);
    this.regexText = "";
    this.mode = "code";
    this.setPunctuator("/");
    if (this.stack.length === 0) this.lastTop = { kind: "punct", text: "/", end: this.regexStart + 1 };
    return reread;
  }

  private openJsxTag(fromCode: boolean): void {
    this.stack.push(JSX_ELEMENT);
    this.mode = "jsxTag";
    this.jsxTagFromCode = fromCode;
    this.jsxTagWords = 0;
    this.jsxWord = "";
    this.jsxSelfClosing = false;
  }

  private scanJsxTag(input: string, i: number, base: number): number {
    const code = input.charCodeAt(i);
    if (isJsxNamePart(code)) {
      this.jsxWord += input[i];
      return i + 1;
    }
    if (this.jsxWord) {
      const word = this.jsxWord;
      this.jsxWord = "";
      this.jsxTagWords++;
      if (this.jsxTagFromCode && this.jsxTagWords === 2 && word === "extends") {
        // `<T extends U>(x: T) => x`: type parameters of an arrow function.
        this.abandonJsxTag();
        this.setWord("extends");
        return i;
      }
    }
    switch (code) {
      case NEWLINE:
        this.addLine(base + i);
        return i + 1;
      case 34:
      case 39:
        this.mode = "jsxAttributeString";
        this.quote = code;
        return i + 1;
      case 123:
        this.stack.push(JSX_ATTRIBUTE_EXPRESSION);
        this.mode = "code";
        this.setPunctuator("{");
        return i + 1;
      case 47:
        this.jsxSelfClosing = true;
        return i + 1;
      case 62:
        if (this.jsxSelfClosing) this.closeJsxElement(base + i + 1);
        else this.mode = "jsxText";
        return i + 1;
      case 44:
        if (this.jsxTagFromCode && this.jsxTagWords === 1) {
          // `<T,>(x: T) => x`: type parameters of an arrow function.
          this.abandonJsxTag();
          this.setPunctuator(",");
          return i + 1;
        }
        return i + 1;
      default:
        return i + 1;
    }
  }

  private abandonJsxTag(): void {
    this.stack.pop();
    this.mode = "code";
  }

  private closeJsxElement(end: number): void {
    this.stack.pop();
    if (this.stack[this.stack.length - 1] === JSX_ELEMENT) {
      this.mode = "jsxText";
      return;
    }
    this.mode = "code";
    this.setValue();
    if (this.stack.length === 0) this.lastTop = { kind: "jsx", text: "", end };
  }

  private addLine(newlineOffset: number): void {
    const start = newlineOffset + 1;
    if (start > this.lineStarts[this.lineStarts.length - 1]) this.lineStarts.push(start);
  }
}
