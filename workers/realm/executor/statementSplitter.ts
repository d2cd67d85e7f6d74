/**
 * Streaming statement splitter: cuts the body of a ```` ```tsx agent.run ````
 * fence into top-level statements while it streams (DESIGN.md §1, "Execution
 * semantics").
 *
 * Invariants of `createStatementSplitter()`:
 *   1. Chunk invariance: the same body cut into any chunks yields the same
 *      statements (same `source`, offsets and lines) and the same error. Only
 *      *when* a statement is yielded depends on the cuts.
 *   2. A statement is yielded as soon as it is provably complete: its `;`
 *      arrived (and, for an `if` without `else`, the next token is not `else`),
 *      or the first token after a newline cannot continue it (JavaScript's ASI
 *      rules: `\n.then(…)`, `\n? a`, `\n(`, `\n[`, a template, a binary
 *      operator, `else`/`catch`/`finally`, `as`/`satisfies` continue; `\n++b`
 *      does not), or the fence closed.
 *   3. `source` is exactly the statement as Babel delimits it: from its first
 *      token to its last (including its `;` if any). Whitespace and comments
 *      between statements are dropped; `start`/`line`/`column` locate `source`
 *      in the body. Empty statements (a lone `;`) are not yielded.
 *   4. Statements come out in order, each once; after an error nothing more
 *      comes out.
 *   5. A syntax error is certain when the parser fails before the end of the
 *      pending text and the next token cannot continue it; a failure at the
 *      very end (`if (x)` so far) only means "incomplete". A certain error is
 *      returned as soon as the rest of its line has arrived (so that
 *      `lineText` is whole whatever the chunks), with no statement after it.
 *   6. At `end()` whatever is left must parse, or it is reported. Because each
 *      boundary before it was decided as soon as its next token came, the
 *      tail is one statement: the longest parseable prefix of complete
 *      statements has already been yielded, and the error is the tail's.
 *   7. Work is linear in the body: the lexer reads each character once (see
 *      lexer.ts) and Babel parses only at candidate boundaries (a top-level `;`,
 *      or a top-level newline followed by a token that does not obviously
 *      continue the line), normally once per statement. That parse is the
 *      runner's too: the tree goes with the statement (takeParsedStatement).
 */
import { parser, type ParserOptions } from "./babel";
import { Lexer, PUNCTUATORS, type LexerListener, type TokenKind, type TopToken } from "./lexer";

export interface SplitStatement {
  /** Exact source text of the statement, including its trailing `;` if any. */
  source: string;
  /** Offset of `source` in the block body. */
  start: number;
  /** 1-based line in the block body where the statement starts. */
  line: number;
  /** 1-based column of that start. */
  column: number;
  /** 1-based line where it ends. */
  endLine: number;
}

/** A syntax error, located in the block body (1-based). */
export interface SplitError {
  message: string;
  line: number;
  column: number;
  lineText: string;
  /** Stable code: Babel's `reasonCode` (`UnexpectedToken`, `MissingSemicolon`, …). */
  code: string;
}

export interface SplitResult {
  statements: SplitStatement[];
  error?: SplitError;
}

export interface StatementSplitter {
  /** Statements made certain by this delta, in order. */
  push(delta: string): SplitResult;
  /** The fence closed: flush everything. */
  end(): SplitResult;
}

export function createStatementSplitter(): StatementSplitter {
  return new Splitter();
}

type ParseOptions = ParserOptions;

/**
 * The options the runner parses with, so that a statement we cut parses there
 * too. `attachComment: false` only skips work: the splitter reads no comments.
 */
const PARSE_OPTIONS: ParseOptions = {
  sourceType: "script",
  plugins: ["typescript", "jsx"],
  allowAwaitOutsideFunction: true,
  // `import`/`export` are taken as models write them (convertModules.ts).
  allowImportExportEverywhere: true,
  errorRecovery: false,
  attachComment: false,
};

/**
 * Tried first: the runner's strict mode. Code valid in strict mode parses to
 * the same tree in sloppy mode, so the splitter decides exactly as with
 * PARSE_OPTIONS, and the statements it cuts carry their tree to the runner
 * (`takeParsedStatement`), which then does not parse them a second time —
 * a second full parse was a quarter of the cost of a long statement. When
 * the strict parse fails, the sloppy one decides and no tree is handed on.
 */
const STRICT_PARSE_OPTIONS: ParseOptions = { ...PARSE_OPTIONS, strictMode: true };

/** Trees of cut statements, positions relative to their `source`; taken once. */
const parsedTrees = new WeakMap<SplitStatement, AstNode>();

/**
 * The Babel statement node of `statement` as the runner's strict parse of
 * `statement.source` alone would give it (positions relative to `source`),
 * or undefined (taken already, parsed sloppily, or a string literal that
 * alone would read as a directive). The caller owns the tree: transforms
 * mutate it, so it is handed out once.
 */
export function takeParsedStatement(statement: SplitStatement): object | undefined {
  const tree = parsedTrees.get(statement);
  parsedTrees.delete(statement);
  return tree;
}

/** The few AST fields the splitter looks at. */
interface AstNode {
  type: string;
  start?: number | null;
  end?: number | null;
  alternate?: AstNode | null;
  consequent?: AstNode;
  body?: AstNode | AstNode[];
  handler?: AstNode | null;
  finalizer?: AstNode | null;
}

interface ParsedStatement {
  node: AstNode;
  /** Absolute offsets in the body. */
  start: number;
  end: number;
  source: string;
  /** Parsed in strict mode: the tree can go to the runner. */
  strict: boolean;
}

type ParseOutcome =
  { ok: true; statements: ParsedStatement[] } | { ok: false; position: number; message: string; code: string };

interface Candidate {
  /**
   * `newline`: a top-level newline; the next token decides.
   *   foo()⏎
   *        ^ position
   * `semicolon`: a complete statement that could still take an `else`.
   *   if (x) a();
   *              ^ position
   */
  kind: "newline" | "semicolon";
  /** Where the pending statements would end (the newline, or just after `;`). */
  position: number;
  /** End of the last token before `position`. */
  lastTokenEnd: number;
  /** The pending text up to `position`, parsed at most once. */
  outcome?: ParseOutcome;
  /** Whether the statement continues with a given next token, probed at most once each. */
  probes?: Map<string, boolean>;
}

/**
 * Words on the next line that may continue the statement: the operators always;
 * `else`, `catch`, `finally` when the statement takes them.
 */
const CONTINUING_WORDS = new Set(["else", "catch", "finally", "in", "instanceof", "as", "satisfies"]);
function startsContinuingWord(text: string): boolean {
  for (const word of CONTINUING_WORDS) if (word.startsWith(text)) return true;
  return false;
}

/** Continuing words that do not depend on what the statement is. */
const OPERATOR_WORDS = ["in", "instanceof", "as", "satisfies"];

/**
 * A line ending with one of these words cannot end a statement, so its newline
 * is not worth a parse (`return`/`break` can end one: not listed).
 */
const LINE_CONTINUING_WORDS = new Set([
  "else",
  "do",
  "typeof",
  "void",
  "delete",
  "new",
  "in",
  "instanceof",
  "extends",
  "case",
  "const",
  "var",
  "function",
  "class",
  "enum",
  "try",
  "catch",
  "finally",
  "throw",
  "if",
  "for",
  "while",
  "switch",
  "with",
  "await",
  "import",
  "export",
]);

/** Punctuators that can end a statement; any other at the end of a line continues it. */
const STATEMENT_ENDING_PUNCTUATORS = new Set([")", "]", "}", "++", "--", "!", ">", ";"]);

type Verdict = "continues" | "starts" | "hazard" | "word" | "undecided";

/** What a complete punctuator at the start of a line means for the statement before it. */
function punctuatorVerdict(punctuator: string): Verdict {
  switch (punctuator) {
    case "(":
    case "[":
      // `let x = 1⏎(foo)()` is one statement, `function f() {}⏎(foo)()` two.
      return "hazard";
    case "{":
    case "}":
    case ")":
    case "]":
    case "++": // `a⏎++b` is `a; ++b` (restricted production)
    case "--":
    case "!":
    case "~":
    case "@":
    case "#":
      return "starts";
    default:
      return "continues"; // binary operators, `.`, `?.`, `?`, `:`, `,`, `=`, `=>`, `;`
  }
}

function tokenVerdict(kind: TokenKind, text: string, complete: boolean): Verdict {
  switch (kind) {
    case "string":
    case "number":
    case "regex":
    case "jsx":
      return "starts";
    case "template":
      return "hazard"; // a tagged template continues an expression
    case "word":
      return "word";
    case "punct": {
      if (complete) return punctuatorVerdict(text);
      if (text === ".") return "undecided"; // `.5` is a number: a new statement
      // `+` may become `++`: decide only when all completions agree.
      let verdict: Verdict | null = null;
      for (const punctuator of PUNCTUATORS) {
        if (!punctuator.startsWith(text)) continue;
        const next = punctuatorVerdict(punctuator);
        if (verdict !== null && verdict !== next) return "undecided";
        verdict = next;
      }
      return verdict ?? "starts";
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`statementSplitter: unknown token kind ${String(unreachable)}`);
    }
  }
}

function lineContinues(token: TopToken): boolean {
  if (token.kind === "punct") return !STATEMENT_ENDING_PUNCTUATORS.has(token.text);
  if (token.kind === "word") return LINE_CONTINUING_WORDS.has(token.text);
  return false;
}

/** `if (a) b()` (also nested in loops or labels) can still take an `else`. */
function canTakeElse(statement: AstNode): boolean {
  let node: AstNode | null | undefined = statement;
  while (node) {
    switch (node.type) {
      case "IfStatement":
        if (!node.alternate) return true;
        node = node.alternate;
        break;
      case "ForStatement":
      case "ForInStatement":
      case "ForOfStatement":
      case "WhileStatement":
      case "WithStatement":
      case "LabeledStatement":
        node = node.body as AstNode;
        break;
      default:
        return false;
    }
  }
  return false;
}

/** `try {} catch {}` (also at the end of an `if` or loop) can still take a `finally`. */
function canTakeFinally(statement: AstNode): boolean {
  let node: AstNode | null | undefined = statement;
  while (node) {
    switch (node.type) {
      case "TryStatement":
        return !!node.handler && !node.finalizer;
      case "IfStatement":
        node = node.alternate ?? node.consequent;
        break;
      case "ForStatement":
      case "ForInStatement":
      case "ForOfStatement":
      case "WhileStatement":
      case "WithStatement":
      case "LabeledStatement":
        node = node.body as AstNode;
        break;
      default:
        return false;
    }
  }
  return false;
}

/** The result of a push that completed no statement and found no error (shared, frozen). */
const NOTHING: SplitResult = Object.freeze({ statements: Object.freeze([]) as unknown as SplitStatement[] });

class Splitter implements StatementSplitter, LexerListener {
  private readonly lexer = new Lexer(this);
  /** The whole body so far; read only to quote the line of an error. */
  private body = "";
  /** Text from `base` to the end of what arrived: not yet yielded. */
  private pending = "";
  private base = 0;
  private received = 0;
  /** Whether a token started in `pending`. */
  private significant = false;
  private candidate: Candidate | null = null;
  /** A syntax error was found: no more statements. */
  private done = false;
  /** The error is known but its line has not fully arrived (to quote it whole). */
  private failure: { error: Omit<SplitError, "lineText">; lineStart: number } | null = null;
  /** The error was returned or the fence closed: every call returns nothing. */
  private finished = false;
  private statements: SplitStatement[] = [];
  private error: SplitError | undefined;

  push(delta: string): SplitResult {
    if (this.finished || delta === "") return NOTHING;
    this.body += delta;
    if (!this.done) {
      this.pending += delta;
      this.received += delta.length;
      this.lexer.feed(delta);
    }
    if (this.failure) this.reportFailure(false);
    return this.takeResult();
  }

  end(): SplitResult {
    if (this.finished) return NOTHING;
    if (!this.done) this.lexer.finish();
    if (!this.done) {
      const candidate = this.candidate;
      this.candidate = null;
      if (candidate?.kind === "semicolon") this.commitOutcome(candidate);
      if (this.significant) {
        // Every boundary before this point was decided when its next token came,
        // so what is left is one statement (possibly several that only a parse
        // can tell apart, like `x = () => {}⏎+1`): it parses, or it is the error.
        const outcome = this.parse(this.received);
        if (outcome.ok) this.commit(outcome.statements, this.received);
        else this.fail(outcome, this.lexer.lastEnd);
      }
    }
    if (this.failure) this.reportFailure(true);
    this.finished = true;
    return this.takeResult();
  }

  // LexerListener

  tokenAtTop(kind: TokenKind, text: string, start: number, complete: boolean): void {
    if (this.done) return;
    if (this.candidate) this.resolve(this.candidate, kind, text, complete);
    if (!this.significant && start > this.base && !this.done) {
      // The next statement's first token: what precedes it (blank lines, comments) is
      // nobody's, and a parse from here gives the statement's tree as its source alone would.
      this.pending = this.pending.slice(start - this.base);
      this.base = start;
    }
    this.significant = true;
  }

  newlineAtTop(offset: number): void {
    if (this.done || !this.significant || this.candidate) return;
    const last = this.lexer.lastTop;
    if (last && lineContinues(last)) return; // `a +⏎`, `x =⏎`, `.then(…)⏎.catch` …
    this.candidate = { kind: "newline", position: offset, lastTokenEnd: last?.end ?? offset };
  }

  startsStatement(operator: "/" | "<"): boolean {
    const candidate = this.candidate;
    if (this.done || !candidate || candidate.kind !== "newline") return false;
    const outcome = (candidate.outcome ??= this.parse(candidate.position));
    // Incomplete or wrong: the operator continues it, as JavaScript reads it.
    if (!outcome.ok) return false;
    return !this.continuesWith(candidate, outcome.statements.length, operator === "/" ? "/ 1" : "< 1");
  }

  semicolonAtTop(end: number): void {
    if (this.done) return;
    const outcome = this.parse(end);
    if (!outcome.ok) {
      // `do x();` waits for its `while`; `let x = ;` is wrong whatever follows.
      if (outcome.position < end) this.fail(outcome, end);
      return;
    }
    const statements = outcome.statements;
    const last = statements[statements.length - 1];
    if (last && canTakeElse(last.node)) {
      // `if (x) a();` — an `else` may follow: run what precedes, hold the `if`.
      this.commit(statements.slice(0, -1), last.start);
      this.significant = true;
      this.candidate = {
        kind: "semicolon",
        position: end,
        lastTokenEnd: end,
        outcome: { ok: true, statements: [last] },
      };
      return;
    }
    this.commit(statements, end);
  }

  // Decisions

  /** The first token after a candidate boundary arrived (maybe only partly). */
  private resolve(candidate: Candidate, kind: TokenKind, text: string, complete: boolean): void {
    if (candidate.kind === "semicolon") {
      if (kind === "word" && (complete ? text === "else" : "else".startsWith(text))) {
        if (complete) this.candidate = null; // `if (x) a();⏎else b();` is one statement
        return;
      }
      this.candidate = null;
      this.commitOutcome(candidate);
      return;
    }

    const verdict = tokenVerdict(kind, text, complete);
    if (verdict === "undecided") return;
    if (verdict === "continues") {
      this.candidate = null;
      return;
    }
    if (verdict === "word" && OPERATOR_WORDS.some((word) => (complete ? word === text : word.startsWith(text)))) {
      // `in`, `instanceof`, `as`, `satisfies` continue whatever came before.
      if (complete) this.candidate = null;
      return;
    }

    const outcome = (candidate.outcome ??= this.parse(candidate.position));
    if (!outcome.ok) {
      // Failing at the very end means "incomplete" (`if (x)⏎foo()`): the next
      // token continues it. Failing before the end cannot be repaired — except
      // by a continuing word (Babel reports `try {}` at the `try`) or by a
      // call or member on the next line (`++f⏎(x)` is valid sloppy code).
      if (outcome.position >= candidate.lastTokenEnd || verdict === "hazard") {
        this.candidate = null;
        return;
      }
      if (kind === "word" && (complete ? CONTINUING_WORDS.has(text) : startsContinuingWord(text))) {
        if (complete) this.candidate = null;
        return;
      }
      this.candidate = null;
      this.fail(outcome, candidate.lastTokenEnd);
      return;
    }
    const last = outcome.statements[outcome.statements.length - 1];
    if (verdict === "word" && last) {
      // `else` and `finally` continue only a statement that can take them; the
      // same test for `e` as for `else`, so that the cut does not matter.
      const takes = (word: string) => (complete ? text === word : word.startsWith(text));
      if ((takes("else") && canTakeElse(last.node)) || (takes("finally") && canTakeFinally(last.node))) {
        if (complete) this.candidate = null;
        return;
      }
    }
    this.candidate = null;
    if (verdict === "hazard") {
      // A stand-in for the rest of the line: `(` → `().x`, `[` → `[0].x`, `` ` `` → ``` ``.x ```
      // (`.x` keeps `++x⏎``[0]` valid: a member is a valid target for `++`).
      const probe = kind === "template" ? "``.x" : text === "(" ? "().x" : "[0].x";
      if (this.continuesWith(candidate, outcome.statements.length, probe)) return;
    }
    this.commit(outcome.statements, candidate.position);
  }

  /**
   * Whether the statement continues with `probe` on the next line: `let x = 1⏎(foo)()`
   * is a call, `function f() {}⏎(foo)()` two statements; `a⏎/ 2` divides,
   * `let w⏎/re/.test(s)` is two. Decided by Babel itself, with `probe` standing
   * in for the rest of the line.
   */
  private continuesWith(candidate: Candidate, count: number, probe: string): boolean {
    const probes = (candidate.probes ??= new Map());
    let continues = probes.get(probe);
    if (continues === undefined) {
      const source = this.pending.slice(0, candidate.position - this.base) + "\n" + probe;
      const outcome = this.parseText(source, this.base);
      continues = outcome.ok && outcome.statements.length === count;
      probes.set(probe, continues);
    }
    return continues;
  }

  private commitOutcome(candidate: Candidate): void {
    const outcome = candidate.outcome;
    if (outcome?.ok) this.commit(outcome.statements, candidate.position);
  }

  // Effects

  private commit(statements: ParsedStatement[], cut: number): void {
    for (const statement of statements) {
      if (statement.node.type === "EmptyStatement") continue;
      const line = this.lineOf(statement.start);
      const split: SplitStatement = {
        source: statement.source,
        start: statement.start,
        line,
        column: statement.start - this.lexer.lineStarts[line - 1] + 1,
        endLine: this.lineOf(Math.max(statement.start, statement.end - 1)),
      };
      // The pending text starts at its first statement's first token (tokenAtTop), so that
      // statement's tree reads as a parse of its source alone; the others would need moving.
      if (statement.strict && statement.node.start === 0 && handsOn(statement.node))
        parsedTrees.set(split, statement.node);
      this.statements.push(split);
    }
    this.pending = this.pending.slice(cut - this.base);
    this.base = cut;
    this.significant = false;
  }

  private fail(outcome: Extract<ParseOutcome, { ok: false }>, lastTokenEnd: number): void {
    // An error at the end of the input is shown after the last token, not on
    // the empty line below it.
    const atEnd = outcome.position >= lastTokenEnd;
    const position = Math.min(outcome.position, lastTokenEnd);
    const line = this.lineOf(position);
    const lineStart = this.lexer.lineStarts[line - 1];
    this.failure = {
      error: {
        message: atEnd ? outcome.message.replace(/^Unexpected token/, "Unexpected end of input") : outcome.message,
        line,
        column: position - lineStart + 1,
        code: outcome.code,
      },
      lineStart,
    };
    this.candidate = null;
    this.done = true;
  }

  /**
   * Returns the error once its whole line is there (or the fence closed), so
   * that `lineText` does not depend on where the chunks were cut. The statements
   * before it have already been yielded; the runner loses nothing by waiting
   * for the end of one line.
   */
  private reportFailure(atEnd: boolean): void {
    const failure = this.failure;
    if (!failure) return;
    const lineEnd = this.body.indexOf("\n", failure.lineStart);
    if (lineEnd < 0 && !atEnd) return;
    const { message, line, column, code } = failure.error;
    const lineText = this.body.slice(failure.lineStart, lineEnd < 0 ? undefined : lineEnd);
    this.error = { message, line, column, lineText, code };
    this.failure = null;
    this.finished = true;
  }

  private takeResult(): SplitResult {
    // Most pushes (a long statement arrives in thousands of deltas) have nothing to report.
    if (this.statements.length === 0 && !this.error) return NOTHING;
    const result: SplitResult = { statements: this.statements };
    if (this.error) result.error = this.error;
    this.statements = [];
    this.error = undefined;
    return result;
  }

  // Parsing

  /** Parses the pending text up to the absolute offset `end`. */
  private parse(end: number): ParseOutcome {
    return this.parseText(this.pending.slice(0, end - this.base), this.base);
  }

  private parseText(text: string, base: number): ParseOutcome {
    let program: { body: AstNode[]; directives: AstNode[] };
    let strict = true;
    try {
      try {
        program = parser.parse(text, STRICT_PARSE_OPTIONS).program as unknown as typeof program;
      } catch {
        strict = false;
        program = parser.parse(text, PARSE_OPTIONS).program as unknown as typeof program;
      }
    } catch (error) {
      const details = error as { pos?: unknown; message?: unknown; reasonCode?: unknown };
      return {
        ok: false,
        position: base + (typeof details.pos === "number" ? details.pos : 0),
        message: String(details.message ?? error)
          .replace(/\s*\(\d+:\d+\)$/, "")
          .replace(/\.$/, ""),
        code: typeof details.reasonCode === "string" ? details.reasonCode : "SyntaxError",
      };
    }
    // A lone string literal at the start of the text is a directive to Babel;
    // to the block it is a statement like any other.
    const nodes = program.directives.length ? [...program.directives, ...program.body] : program.body;
    return {
      ok: true,
      statements: nodes.map((node) => ({
        node,
        start: base + (node.start ?? 0),
        end: base + (node.end ?? 0),
        source: text.slice(node.start ?? 0, node.end ?? 0),
        strict,
      })),
    };
  }

  private lineOf(offset: number): number {
    const starts = this.lexer.lineStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }
}

/** Statements whose tree reads the same when parsed alone: not directives, nor a lone string literal (alone, a directive). */
function handsOn(node: AstNode): boolean {
  if (node.type === "Directive") return false;
  const expression = (node as { expression?: { type?: string } }).expression;
  return !(node.type === "ExpressionStatement" && expression?.type === "StringLiteral");
}
