import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { charactersExamined, createProtocolParser } from "./parser";
import { parseFenceHeader } from "./header";
import { splitThinking } from "./thinking";
import type { ProtocolEvent } from "./types";

// ---------------------------------------------------------------------------
// Helpers

function parseChunks(chunks: readonly string[]): ProtocolEvent[] {
  const parser = createProtocolParser();
  const events: ProtocolEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

const parse = (reply: string): ProtocolEvent[] => parseChunks([reply]);

interface MergedBlock {
  index: number;
  kind: string;
  lang?: string;
  id?: string;
  line: number;
  text: string;
  unterminated: boolean;
}
interface MergedError {
  /** Index of the block that was open when the error came (the text block holding the fence). */
  blockIndex: number;
  line: number;
  info: string;
  code: string;
}
interface MergedThinking {
  tag: string;
  text: string;
  unterminated: boolean;
}
interface Merged {
  blocks: MergedBlock[];
  errors: MergedError[];
  /** Present only for a reply that opens with a thinking section. */
  thinking?: MergedThinking;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Merges deltas per block and checks the event-stream invariants on the way:
 * start → deltas → one end, sequential indexes, no empty deltas, no delta
 * splitting a surrogate pair (when the input has none split itself).
 */
function merge(events: readonly ProtocolEvent[], input?: string): Merged {
  const blocks: MergedBlock[] = [];
  const errors: MergedError[] = [];
  let open: MergedBlock | null = null;
  let thinking: MergedThinking | undefined;
  let thinkingOpen = false;
  const checkSurrogates = input !== undefined && !LONE_SURROGATE.test(input);
  for (const event of events) {
    switch (event.type) {
      case "block-start": {
        expect(open, "block-start while a block is open").toBeNull();
        expect(event.index).toBe(blocks.length);
        open = { index: event.index, kind: event.kind, line: event.line, text: "", unterminated: false };
        if (event.kind === "code") open.lang = event.lang;
        if (event.kind === "data") open.id = event.id;
        blocks.push(open);
        break;
      }
      case "block-delta":
        expect(open?.index).toBe(event.index);
        expect(event.text).not.toBe("");
        if (checkSurrogates) expect(LONE_SURROGATE.test(event.text), JSON.stringify(event.text)).toBe(false);
        open!.text += event.text;
        break;
      case "block-end":
        expect(open?.index).toBe(event.index);
        open!.unterminated = event.unterminated;
        open = null;
        break;
      case "protocol-error":
        expect(open, "an error is reported inside the text block holding the fence").not.toBeNull();
        errors.push({ blockIndex: open!.index, line: event.line, info: event.info, code: event.code });
        break;
      case "thinking-start":
        expect(thinking, "one thinking section at most").toBeUndefined();
        expect(blocks.length + errors.length, "thinking comes before any block").toBe(0);
        thinking = { tag: event.tag, text: "", unterminated: false };
        thinkingOpen = true;
        break;
      case "thinking-delta":
        expect(thinkingOpen).toBe(true);
        expect(event.text).not.toBe("");
        if (checkSurrogates) expect(LONE_SURROGATE.test(event.text), JSON.stringify(event.text)).toBe(false);
        thinking!.text += event.text;
        break;
      case "thinking-end":
        expect(thinkingOpen).toBe(true);
        thinking!.unterminated = event.unterminated;
        thinkingOpen = false;
        break;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown event ${JSON.stringify(unreachable)}`);
      }
    }
  }
  expect(open, "every block ends").toBeNull();
  expect(thinkingOpen, "a thinking section ends").toBe(false);
  if (thinking) return { blocks, errors, thinking };
  for (const block of blocks) {
    if (block.kind === "text") expect(block.text.trim(), "text blocks hold visible characters").not.toBe("");
  }
  return { blocks, errors };
}

/** Cuts `text` at the given positions (any order, duplicates allowed). */
function cut(text: string, positions: readonly number[]): string[] {
  const points = [...new Set(positions.map((position) => Math.min(position, text.length)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let previous = 0;
  for (const point of points) {
    chunks.push(text.slice(previous, point));
    previous = point;
  }
  chunks.push(text.slice(previous));
  return chunks;
}

const everyChar = (text: string): string[] => text.split("");

/**
 * A second, deliberately naive reading of DESIGN.md §1: split the whole reply
 * into lines and classify each with regular expressions. Slow and simple, so
 * it can serve as an oracle for the state machine.
 */
function referenceParse(reply: string): Merged {
  const blocks: MergedBlock[] = [];
  const errors: MergedError[] = [];
  const lines: { content: string; ending: boolean }[] = [];
  const linePattern = /([^\r\n]*)(\r\n|\r|\n)|([^\r\n]+)$/g;
  for (const match of reply.matchAll(linePattern)) {
    if (match[2] !== undefined) lines.push({ content: match[1], ending: true });
    else lines.push({ content: match[3], ending: false });
  }
  let text = "";
  let textLine = 1;
  let fence: { agent: boolean; char: string; length: number; indent: number } | null = null;
  let agentBlock: MergedBlock | null = null;
  let textBlockIndex = -1;
  const flushText = (unterminated: boolean): void => {
    if (text.trim() !== "") {
      blocks.push({ index: blocks.length, kind: "text", line: textLine, text, unterminated });
    }
    text = "";
  };
  lines.forEach(({ content, ending }, position) => {
    const lineNumber = position + 1;
    const newline = ending ? "\n" : "";
    if (fence === null) {
      const opener = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(content);
      if (opener !== null && !(opener[2][0] === "`" && opener[3].includes("`"))) {
        const header = parseFenceHeader(opener[3]);
        const base = { char: opener[2][0], length: opener[2].length, indent: opener[1].length };
        if (header.kind === "code" || header.kind === "data") {
          flushText(false);
          agentBlock = { index: blocks.length, kind: header.kind, line: lineNumber + 1, text: "", unterminated: false };
          if (header.kind === "code") agentBlock.lang = header.lang;
          else agentBlock.id = header.id;
          blocks.push(agentBlock);
          fence = { agent: true, ...base };
          return;
        }
        if (text.trim() === "") textBlockIndex = blocks.length;
        text += content + newline;
        if (header.kind === "malformed") {
          errors.push({
            blockIndex: textBlockIndex,
            line: lineNumber,
            info: opener[3].trim(),
            code: "malformed-header",
          });
        }
        fence = { agent: false, ...base };
        return;
      }
      if (text === "") textLine = lineNumber;
      if (text.trim() === "") textBlockIndex = blocks.length;
      text += content + newline;
      return;
    }
    const closer = /^ {0,3}(`+|~+)[ \t]*$/.exec(content);
    const closes = closer !== null && closer[1][0] === fence.char && closer[1].length >= fence.length;
    if (fence.agent) {
      if (closes) {
        agentBlock = null;
        fence = null;
        textLine = lineNumber + 1;
        return;
      }
      const indent = /^ */.exec(content)![0].length;
      agentBlock!.text += content.slice(Math.min(indent, fence.indent)) + newline;
      return;
    }
    text += content + newline;
    if (closes) fence = null;
  });
  if (agentBlock !== null) (agentBlock as MergedBlock).unterminated = true;
  flushText(fence !== null);
  return { blocks, errors };
}

const block = (
  index: number,
  kind: "text" | "code" | "data",
  line: number,
  text: string,
  extra: { lang?: string; id?: string; unterminated?: boolean } = {},
): MergedBlock => ({
  index,
  kind,
  line,
  text,
  unterminated: extra.unterminated ?? false,
  ...(extra.lang !== undefined ? { lang: extra.lang } : {}),
  ...(extra.id !== undefined ? { id: extra.id } : {}),
});

/** Blocks of a reply, checked against every-char chunking and the reference reading. */
function blocksOf(reply: string): Merged {
  const merged = merge(parse(reply), reply);
  expect(merge(parseChunks(everyChar(reply)), reply)).toEqual(merged);
  expect(referenceParse(reply)).toEqual(merged);
  return merged;
}

// ---------------------------------------------------------------------------
// Examples

describe("createProtocolParser: blocks", () => {
  it("emits exact events for text, a code block and text", () => {
    expect(parse("Hi\n```tsx agent.run\nconst x = 1;\n```\nBye")).toEqual([
      { type: "block-start", index: 0, kind: "text", line: 1 },
      { type: "block-delta", index: 0, text: "Hi\n" },
      { type: "block-end", index: 0, unterminated: false },
      { type: "block-start", index: 1, kind: "code", lang: "tsx", line: 3 },
      { type: "block-delta", index: 1, text: "const x = 1;\n" },
      { type: "block-end", index: 1, unterminated: false },
      { type: "block-start", index: 2, kind: "text", line: 5 },
      { type: "block-delta", index: 2, text: "Bye" },
      { type: "block-end", index: 2, unterminated: false },
    ]);
  });

  it("emits nothing for an empty or whitespace-only reply", () => {
    expect(parse("")).toEqual([]);
    expect(parse(" \n\t\r\n\n")).toEqual([]);
  });

  it("accepts every code language", () => {
    for (const lang of ["tsx", "ts", "typescript", "jsx", "js"]) {
      expect(blocksOf("```" + lang + " agent.run\nf()\n```\n").blocks).toEqual([
        block(0, "code", 2, "f()\n", { lang }),
      ]);
      expect(blocksOf("```" + lang + " \t agent.run  \nf()\n```\n").blocks).toEqual([
        block(0, "code", 2, "f()\n", { lang }),
      ]);
    }
  });

  it("reads data ids in single or double quotes with flexible spaces around =>", () => {
    const headers: [string, string][] = [
      ['json agent.data => "users"', "users"],
      ["json agent.data => 'users'", "users"],
      ['json agent.data=>"a b"', "a b"],
      ["json  agent.data   =>\t'x-1'  ", "x-1"],
      ['json agent.data => "it\'s"', "it's"],
    ];
    for (const [header, id] of headers) {
      expect(blocksOf("```" + header + '\n{"a": 1}\n```\n')).toEqual({
        blocks: [block(0, "data", 2, '{"a": 1}\n', { id })],
        errors: [],
      });
    }
  });

  it("starts with the code block at index 0 when the reply opens with a fence", () => {
    expect(parse("```js agent.run\n1\n```\n")[0]).toEqual({
      type: "block-start",
      index: 0,
      kind: "code",
      lang: "js",
      line: 2,
    });
  });

  it("puts no text block between back-to-back blocks, nor for whitespace-only text between them", () => {
    const code = "```ts agent.run\na()\n```";
    const data = '```json agent.data => "d"\n[]\n```';
    const expected = [block(0, "code", 2, "a()\n", { lang: "ts" }), block(1, "data", 5, "[]\n", { id: "d" })];
    expect(blocksOf(`${code}\n${data}\n`).blocks).toEqual(expected);
    const spaced = blocksOf(`\n\n${code}\n \n\t\n${data}\n\n`).blocks;
    expect(spaced.map((b) => [b.index, b.kind, b.text])).toEqual([
      [0, "code", "a()\n"],
      [1, "data", "[]\n"],
    ]);
    expect(blocksOf(`${code}\n\nok\n\n${data}\n`).blocks[1]).toEqual(block(1, "text", 4, "\nok\n\n"));
  });

  it("keeps leading whitespace of a text run inside its block, starting at the run's first line", () => {
    expect(blocksOf("```js agent.run\n1\n```\n\n\n  Next").blocks[1]).toEqual(block(1, "text", 4, "\n\n  Next"));
  });

  it("produces empty agent blocks with no delta", () => {
    expect(parse("```tsx agent.run\n```\n")).toEqual([
      { type: "block-start", index: 0, kind: "code", lang: "tsx", line: 2 },
      { type: "block-end", index: 0, unterminated: false },
    ]);
  });

  it("counts lines from 1 across blocks", () => {
    const reply = "a\nb\nc\n```js agent.run\nx\ny\n```\nd\n~~~json agent.data => 'q'\n1\n~~~\n";
    expect(blocksOf(reply).blocks.map((b) => [b.kind, b.line])).toEqual([
      ["text", 1],
      ["code", 5],
      ["text", 8],
      ["data", 10],
    ]);
  });
});

describe("createProtocolParser: CommonMark fences", () => {
  it("opens tilde fences and lets them contain backtick lines", () => {
    expect(blocksOf("~~~tsx agent.run\n```\nx\n```\n~~~\n").blocks).toEqual([
      block(0, "code", 2, "```\nx\n```\n", { lang: "tsx" }),
    ]);
  });

  it("lets a 4-backtick fence contain ``` lines and closes only on 4+", () => {
    const reply = "````tsx agent.run\nconst md = `\n```js\ncode\n```\n`;\n`````\nafter\n";
    expect(blocksOf(reply).blocks).toEqual([
      block(0, "code", 2, "const md = `\n```js\ncode\n```\n`;\n", { lang: "tsx" }),
      block(1, "text", 8, "after\n"),
    ]);
  });

  it("closes on a line of the same marker only, with trailing whitespace allowed", () => {
    expect(blocksOf("```js agent.run\n~~~\n``` \t\nx\n").blocks).toEqual([
      block(0, "code", 2, "~~~\n", { lang: "js" }),
      block(1, "text", 4, "x\n"),
    ]);
  });

  it("does not close on a fence line with an info string or 4+ spaces of indent", () => {
    expect(blocksOf("```js agent.run\n```js\n    ```\n   ```\n").blocks).toEqual([
      block(0, "code", 2, "```js\n    ```\n", { lang: "js" }),
    ]);
  });

  it("does not open with 4 spaces of indent, a tab, or fewer than 3 markers", () => {
    for (const reply of [
      "    ```tsx agent.run\nx\n",
      "\t```tsx agent.run\nx\n",
      "``tsx agent.run\nx\n",
      "~~ js agent.run\n",
    ]) {
      const merged = blocksOf(reply);
      expect(merged.blocks).toEqual([block(0, "text", 1, reply)]);
      expect(merged.errors).toEqual([]);
    }
  });

  it("removes up to the opener's indentation from body lines", () => {
    const reply = "  ```tsx agent.run\n    a\n  b\n c\nd\n\n  ```\n";
    expect(blocksOf(reply).blocks).toEqual([block(0, "code", 2, "  a\nb\nc\nd\n\n", { lang: "tsx" })]);
    expect(blocksOf("   ```js agent.run\n      deep\n     ```\n").blocks[0].text).toBe("   deep\n  ```\n");
  });

  it("keeps tabs in body indentation as written", () => {
    expect(blocksOf("  ```js agent.run\n\tx\n ```\n").blocks[0].text).toBe("\tx\n");
  });

  it("treats inline ``` in prose and a backtick info string as text", () => {
    const reply = "Use ```tsx agent.run``` to run code.\n```tsx agent.run`\nstill text\n";
    expect(blocksOf(reply)).toEqual({ blocks: [block(0, "text", 1, reply)], errors: [] });
  });

  it("allows backticks in a tilde fence's info string", () => {
    const reply = "~~~ a`b\n```tsx agent.run\n~~~\n";
    expect(blocksOf(reply)).toEqual({ blocks: [block(0, "text", 1, reply)], errors: [] });
  });

  it("keeps ordinary fences in the text exactly, including agent headers shown inside them", () => {
    const reply = "Example:\n````markdown\n```tsx agent.run\nalert(1)\n```\n````\nDone.\n";
    expect(blocksOf(reply)).toEqual({ blocks: [block(0, "text", 1, reply)], errors: [] });
  });

  it("treats an unclosed ordinary fence as running to the end, marking the text block unterminated", () => {
    const reply = "```python\nprint(1)\n```tsx agent.run\n";
    expect(blocksOf(reply).blocks).toEqual([block(0, "text", 1, reply, { unterminated: true })]);
  });
});

describe("createProtocolParser: containers", () => {
  it("recognises a list item's fence continued with 2–3 spaces and strips that indentation", () => {
    const reply = "1. Step one:\n   ```tsx agent.run\n   const x = 1;\n   ```\n2. Step two\n";
    expect(blocksOf(reply).blocks).toEqual([
      block(0, "text", 1, "1. Step one:\n"),
      block(1, "code", 3, "const x = 1;\n", { lang: "tsx" }),
      block(2, "text", 5, "2. Step two\n"),
    ]);
  });

  it("leaves fences behind list markers, quotes or 4+ spaces as text, unreported", () => {
    const reply = [
      "- ```tsx agent.run",
      "  x",
      "> ```tsx agent.run",
      "> y",
      "> ```",
      "- item",
      "    - nested",
      "      ```python agent.run",
      "      z",
      "      ```",
      "",
    ].join("\n");
    expect(blocksOf(reply)).toEqual({ blocks: [block(0, "text", 1, reply)], errors: [] });
  });
});

describe("createProtocolParser: malformed headers", () => {
  const cases: [string, number][] = [
    ["python agent.run", 1],
    ["json agent.data => id", 1],
    ["json agent.data => \"id'", 1],
    ['json agent.data => ""', 1],
    ["tsx agent.runn", 1],
    ["TSX agent.run", 1],
    ["tsx agent.run now", 1],
    ["agent.run", 1],
    ["agent.data", 1],
    ['js agent.data => "x"', 1],
    ["agent.anything", 1],
  ];
  for (const [info] of cases) {
    it(`shows and reports \`\`\`${info}`, () => {
      const reply = `Intro\n\`\`\`${info}\nbody\n\`\`\`\nafter\n`;
      const events = parse(reply);
      const error = events.find((event) => event.type === "protocol-error");
      expect(error).toMatchObject({ type: "protocol-error", code: "malformed-header", line: 2, info });
      expect(blocksOf(reply)).toEqual({
        blocks: [block(0, "text", 1, reply)],
        errors: [{ blockIndex: 0, line: 2, info, code: "malformed-header" }],
      });
    });
  }

  it("emits the error right after the fence line's text", () => {
    const events = parse("```py agent.run\nx\n");
    expect(events.map((event) => event.type)).toEqual([
      "block-start",
      "block-delta",
      "protocol-error",
      "block-delta",
      "block-end",
    ]);
    expect(events[1]).toEqual({ type: "block-delta", index: 0, text: "```py agent.run\n" });
  });

  it("does not report ordinary fences or agent words inside ordinary fences", () => {
    expect(blocksOf("```tsx\nx\n```\n```\nagent.run\n```python agent.run\n```\n").errors).toEqual([]);
  });
});

describe("createProtocolParser: end of stream", () => {
  it("closes an unterminated code block", () => {
    expect(blocksOf("```tsx agent.run\nconst a = 1;\nconst b").blocks).toEqual([
      block(0, "code", 2, "const a = 1;\nconst b", { lang: "tsx", unterminated: true }),
    ]);
  });

  it("closes an unterminated data block, holding back nothing but a possible closer", () => {
    expect(blocksOf('```json agent.data => "x"\n{"a": [1, 2\n``').blocks).toEqual([
      block(0, "data", 2, '{"a": [1, 2\n``', { id: "x", unterminated: true }),
    ]);
  });

  it("closes an agent block opened on the last line", () => {
    expect(parse("text\n```tsx agent.run")).toEqual([
      { type: "block-start", index: 0, kind: "text", line: 1 },
      { type: "block-delta", index: 0, text: "text\n" },
      { type: "block-end", index: 0, unterminated: false },
      { type: "block-start", index: 1, kind: "code", lang: "tsx", line: 3 },
      { type: "block-end", index: 1, unterminated: true },
    ]);
  });

  it("treats a closing fence without a final newline as a closer", () => {
    expect(blocksOf("```js agent.run\nx\n```").blocks).toEqual([block(0, "code", 2, "x\n", { lang: "js" })]);
    expect(blocksOf("```js agent.run\nx\n  ``` ").blocks).toEqual([block(0, "code", 2, "x\n", { lang: "js" })]);
  });

  it("releases held indentation at the end of a body", () => {
    expect(blocksOf(" ```js agent.run\nx\n   ").blocks[0]).toEqual(
      block(0, "code", 2, "x\n  ", { lang: "js", unterminated: true }),
    );
  });

  it("refuses input after end()", () => {
    const parser = createProtocolParser();
    parser.end();
    expect(() => parser.push("x")).toThrow();
    expect(() => parser.end()).toThrow();
  });
});

describe("createProtocolParser: line endings", () => {
  it("normalises CRLF and lone CR to \\n in every block", () => {
    const reply = "a\r\n```tsx agent.run\r\nx\ry\r\n```\r\nb\rc\r\n";
    expect(blocksOf(reply).blocks).toEqual([
      block(0, "text", 1, "a\n"),
      block(1, "code", 3, "x\ny\n", { lang: "tsx" }),
      block(2, "text", 6, "b\nc\n"),
    ]);
  });

  it("treats a CR at a chunk end and an LF at the next chunk start as one line ending", () => {
    const chunks = ["a\r", "\n```js agent.run\r", "\nx\r", "\n```\r", "\n\r", "\nb"];
    expect(merge(parseChunks(chunks)).blocks).toEqual([
      block(0, "text", 1, "a\n"),
      block(1, "code", 3, "x\n", { lang: "js" }),
      block(2, "text", 5, "\nb"),
    ]);
  });

  it("counts \\r\\r\\n as two line endings", () => {
    expect(blocksOf("a\r\r\n```js agent.run\nx\n```\n").blocks[1].line).toBe(4);
  });
});

describe("createProtocolParser: streaming", () => {
  const deltas = (events: ProtocolEvent[]): string =>
    events.flatMap((event) => (event.type === "block-delta" ? [event.text] : [])).join("");

  it("streams a text line as soon as it cannot open a fence", () => {
    const parser = createProtocolParser();
    expect(deltas(parser.push("Hel"))).toBe("Hel");
    expect(deltas(parser.push("lo\n  ``"))).toBe("lo\n");
    expect(deltas(parser.push("x"))).toBe("  ``x");
  });

  it("holds an opener line until its end, then decides", () => {
    const parser = createProtocolParser();
    expect(parser.push("```tsx agent.")).toEqual([]);
    expect(parser.push("run")).toEqual([]);
    expect(parser.push("\n")).toEqual([{ type: "block-start", index: 0, kind: "code", lang: "tsx", line: 2 }]);
  });

  it("releases a body line as soon as it cannot be a closer, holding only a possible closer prefix", () => {
    const parser = createProtocolParser();
    parser.push(" ```tsx agent.run\n");
    expect(deltas(parser.push("   con"))).toBe("  con");
    expect(deltas(parser.push("st x;\n``"))).toBe("st x;\n");
    expect(deltas(parser.push("`  "))).toBe("");
    expect(deltas(parser.push(" x"))).toBe("```   x");
    expect(deltas(parser.push("\n~~~"))).toBe("\n~~~");
  });

  it("streams ordinary fence lines without holding them", () => {
    const parser = createProtocolParser();
    parser.push("```python\n");
    expect(deltas(parser.push("``"))).toBe("``");
  });

  it("never splits a surrogate pair across deltas", () => {
    const parser = createProtocolParser();
    expect(deltas(parser.push("a\uD83D"))).toBe("a");
    expect(deltas(parser.push("\uDE00b"))).toBe("😀b");
    expect(deltas(parser.end())).toBe("");
  });

  it("passes a lone surrogate at the very end through", () => {
    expect(merge(parseChunks(["x\uD83D"])).blocks[0].text).toBe("x\uD83D");
  });
});

// ---------------------------------------------------------------------------
// Properties

const corpus: string[] = [
  "Plain prose with **bold** and `inline` code.\n\nSecond paragraph.",
  'Here:\n```tsx agent.run\nconst x = 1;\nconsole.log(`x is ${x}`);\n```\nAnd data:\n```json agent.data => "users"\n[{"name": "A ``` B"}]\n```\nDone.\n',
  "- item one\n- item two\n  ```tsx agent.run\n  mount({ ui: () => <b>hi</b> });\n  ```\n- ```js agent.run\n  not a fence\n",
  "> quoted\n> ```tsx agent.run\n> alert(1)\n> ```\n\nafter quote\n",
  "1. first\n    - nested\n\n        ```tsx agent.run\n        nested()\n        ```\n",
  '~~~tsx agent.run\nconst s = "```";\n```\n~~~\n~~~~json agent.data => \'cfg\'\n{"a": "~~~"}\n~~~~\n',
  "````tsx agent.run\nconst md = `\n```js\ncode\n```\n`;\n````\n",
  "   ```ts agent.run\n     indented()\n   ok()\n   ```\n",
  "Use ```tsx agent.run``` inline, or ``` in the middle of a line.\n```a```\n",
  '```ts agent.run\nfirst()\n```\n```json agent.data => "d"\n[1,2,3]\n```\n\n\n```js agent.run\n```\n',
  '```tsx agent.run\n```\n```json agent.data => "empty"\n```\n',
  "Oops:\n```python agent.run\nprint('x')\n```\n```json agent.data => id\n{}\n```\n",
  "```tsx agent.run\nconst a = 1;\nconst b = `unterminated",
  '```json agent.data => "late"\n{"items": [1, 2, 3',
  "Text\n```python\nprint('never closed')\n```tsx agent.run\n",
  "Line one\r\n```tsx agent.run\r\nconst x = 1;\r\n```\r\nLast\r\n",
  "mac\rlines\r```js agent.run\rx()\r```\r",
  'Emoji 😀🎉 and CJK 漢字テスト\n```tsx agent.run\nconst s = "😀👩‍👩‍👧 漢字";\n```\n```json agent.data => "名前"\n{"k": "🎉"}\n```\n终\n',
  "\n\n   \n```js agent.run\nx\n```\n\t\n",
  "```\nplain fence\n```\n``` tsx agent.run\nspace before lang\n```\n",
  "````\n```tsx agent.run\nshown, not run\n```\n````\n",
  "```js agent.run\n  ```  \nafter\n",
  "```js agent.run\n``` js\n```\n",
  "``\n```\n`````\n``\n",
];

/** Cut points chosen by fast-check, biased towards fence markers and surrogate pairs. */
function cutPoints(text: string): fc.Arbitrary<number[]> {
  const interesting: number[] = [];
  for (let i = 0; i <= text.length; i++) {
    const code = text.charCodeAt(i - 1);
    if (code === 96 || code === 126 || code === 13 || (code >= 0xd800 && code <= 0xdbff)) interesting.push(i);
  }
  const anywhere = fc.integer({ min: 0, max: text.length });
  const point = interesting.length > 0 ? fc.oneof(anywhere, fc.constantFrom(...interesting)) : anywhere;
  return fc.array(point, { maxLength: Math.max(1, Math.min(40, text.length)) });
}

describe("createProtocolParser: chunk invariance", () => {
  it("matches the reference reading on the corpus", () => {
    for (const reply of corpus)
      expect(merge(parse(reply), reply), JSON.stringify(reply)).toEqual(referenceParse(reply));
  });

  it("gives the same blocks for every chunk size and one character at a time", () => {
    for (const reply of corpus) {
      const whole = merge(parse(reply), reply);
      for (let size = 1; size <= 9; size++) {
        const chunks: string[] = [];
        for (let i = 0; i < reply.length; i += size) chunks.push(reply.slice(i, i + size));
        expect(merge(parseChunks(chunks), reply), `${JSON.stringify(reply)} in chunks of ${size}`).toEqual(whole);
      }
    }
  });

  it("gives the same blocks for random cuts of the corpus (including inside markers and surrogate pairs)", () => {
    const replyWithCuts = fc
      .constantFrom(...corpus)
      .chain((reply) => cutPoints(reply).map((points) => [reply, points] as const));
    fc.assert(
      fc.property(replyWithCuts, ([reply, points]) => {
        expect(merge(parseChunks(cut(reply, points)), reply)).toEqual(merge(parse(reply), reply));
      }),
      { numRuns: 1500 },
    );
  });

  const pieces = [
    "`",
    "``",
    "```",
    "````",
    "~",
    "~~~",
    " ",
    "   ",
    "    ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "agent.run",
    "agent.data",
    "tsx",
    "json",
    " agent.run",
    'json agent.data => "x"',
    "json agent.data => 'y'",
    "=>",
    '"',
    "'",
    "a",
    "x;",
    "- ",
    "> ",
    "😀",
    "漢",
    "\uD83D",
    "\uDE00",
    // Whole fence lines, so that agent blocks, ordinary fences and closers are common.
    "\n```tsx agent.run\n",
    "\n~~~js agent.run\n",
    "\n  ````ts agent.run\n",
    '\n```json agent.data => "x"\n',
    "\n```python\n",
    "\n```py agent.run\n",
    "\n```\n",
    "\n~~~\n",
    "\n````\n",
    "\n   ``` \n",
    "\r\n```\r\n",
  ];
  const randomReply = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((parts) => parts.join(""));

  it("gives the same blocks for random text cut at random points", () => {
    fc.assert(
      fc.property(
        randomReply.chain((reply) =>
          fc
            .array(fc.integer({ min: 0, max: reply.length }), { maxLength: 20 })
            .map((points) => [reply, points] as const),
        ),
        ([reply, points]) => {
          const whole = merge(parse(reply), reply);
          expect(merge(parseChunks(cut(reply, points)), reply)).toEqual(whole);
          expect(merge(parseChunks(everyChar(reply)), reply)).toEqual(whole);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("agrees with the reference reading on random text", () => {
    fc.assert(
      fc.property(randomReply, (reply) => {
        expect(merge(parse(reply), reply)).toEqual(referenceParse(reply));
      }),
      { numRuns: 3000 },
    );
  });
});

// ---------------------------------------------------------------------------
// Work

function examinedFor(reply: string, chunkSize: number): number {
  const parser = createProtocolParser();
  for (let i = 0; i < reply.length; i += chunkSize) parser.push(reply.slice(i, i + chunkSize));
  parser.end();
  return charactersExamined(parser);
}

describe("createProtocolParser: incremental work", () => {
  const section = corpus.slice(0, 11).join("\n") + "\n";
  const megabyte = section.repeat(Math.ceil(2 ** 20 / section.length));

  it("examines each character a bounded number of times for a 1 MB reply in 4-char chunks", () => {
    const examined = examinedFor(megabyte, 4);
    expect(examined).toBeGreaterThanOrEqual(megabyte.length);
    expect(examined).toBeLessThanOrEqual(2 * megabyte.length);
  });

  it("stays linear on pathological inputs fed one character at a time", () => {
    const size = 200_000;
    const inputs = [
      "```tsx agent.run\n" + "x".repeat(size), // one huge body line
      "```" + "a".repeat(size) + "\n", // one huge held opener line
      "```" + "a".repeat(size) + "`", // a held opener that turns into text
      "\n".repeat(size) + "x", // whitespace held before the first visible character
      "```js agent.run\n" + "`".repeat(2) + " ".repeat(size), // held closer candidate... which is not one
      "```js agent.run\n```" + " ".repeat(size) + "x\n```\n", // long closer tail released as content
      "```tsx agent.run\n```\n".repeat(size / 20), // many tiny blocks
    ];
    for (const input of inputs) {
      expect(examinedFor(input, 1), JSON.stringify(input.slice(0, 30))).toBeLessThanOrEqual(4 * input.length);
    }
  });

  it("keeps work per character constant as the reply grows", () => {
    const small = examinedFor(megabyte.slice(0, 2 ** 18), 4) / 2 ** 18;
    const large = examinedFor(megabyte, 4) / megabyte.length;
    expect(Math.abs(large - small)).toBeLessThan(0.1);
  });
});

// ---------------------------------------------------------------------------
// Thinking section

/**
 * Reference reading of a leading thinking section: a regular expression for
 * the opener, `indexOf` for the closer, then the naive block reading of the
 * answer (blank lines after the closer dropped, the first visible line kept
 * whole).
 */
function referenceWithThinking(reply: string): Merged {
  const opener = /^[ \t\r\n]*<(think|thinking)>/.exec(reply);
  if (!opener) return referenceParse(reply);
  const tag = opener[1];
  const rest = reply.slice(opener[0].length);
  const close = rest.indexOf(`</${tag}>`);
  const raw = close < 0 ? rest : rest.slice(0, close);
  const text = raw.replace(/\r\n|\r/g, "\n");
  const answer = close < 0 ? "" : rest.slice(close + tag.length + 3).replace(/^([ \t]*(\r\n|\r|\n))*/, "");
  const thinking = { tag, text, unterminated: close < 0 };
  return { ...referenceParse(answer), thinking };
}

const thinkingCorpus = [
  "<think>\nLet me try:\n```tsx agent.run\nalert('draft')\n```\nbetter not.\n</think>\n\nHere it is:\n```tsx agent.run\nconsole.log(1)\n```\n",
  "  \n\t<thinking>plan</thinking>Answer on the same line\n",
  "<think></think>\n```js agent.run\nx()\n```\n",
  "<think>a < b and </thin k> and </thinking> are not the closer</think>\r\n\r\n   ```ts agent.run\r\n   y()\r\n   ```\r\n",
  "<thinking>never closed\n```tsx agent.run\nrun()\n",
  "<think>ends inside the closer </thi",
  "<thin>not a tag</thin>\n```js agent.run\nz()\n```\n",
  "Text first <think>not leading</think>\n",
  '<think>😀 漢字\r\rlines</think>\n\n\n\n~~~json agent.data => "d"\n[1]\n~~~\n',
  "\n\n<thinkin",
  "<think>x</think>   \n  \t\n",
  "<<think>>",
];

describe("createProtocolParser: thinking section", () => {
  it("emits a leading <think> section as thinking events, never as blocks", () => {
    const events = parse(thinkingCorpus[0]);
    expect(events.slice(0, 3)).toEqual([
      { type: "thinking-start", tag: "think" },
      { type: "thinking-delta", text: "\nLet me try:\n```tsx agent.run\nalert('draft')\n```\nbetter not.\n" },
      { type: "thinking-end", unterminated: false },
    ]);
    const { blocks } = merge(events);
    expect(blocks.map((item) => [item.kind, item.line, item.text])).toEqual([
      ["text", 1, "Here it is:\n"],
      ["code", 3, "console.log(1)\n"],
    ]);
  });

  it("accepts <thinking> after leading whitespace, and an answer on the closer's line", () => {
    const merged = merge(parse(thinkingCorpus[1]));
    expect(merged.thinking).toEqual({ tag: "thinking", text: "plan", unterminated: false });
    expect(merged.blocks).toEqual([block(0, "text", 1, "Answer on the same line\n")]);
  });

  it("closes only on the tag that opened the section", () => {
    const merged = merge(parse(thinkingCorpus[3]));
    expect(merged.thinking?.text).toBe("a < b and </thin k> and </thinking> are not the closer");
    expect(merged.blocks).toEqual([block(0, "code", 2, "y()\n", { lang: "ts" })]);
  });

  it("marks a section the stream ended inside as unterminated, with no block after it", () => {
    const merged = merge(parse(thinkingCorpus[4]));
    expect(merged.thinking).toEqual({
      tag: "thinking",
      text: "never closed\n```tsx agent.run\nrun()\n",
      unterminated: true,
    });
    expect(merged.blocks).toEqual([]);
    expect(merge(parse(thinkingCorpus[5])).thinking).toEqual({
      tag: "think",
      text: "ends inside the closer </thi",
      unterminated: true,
    });
  });

  it("leaves replies without a leading section exactly as before", () => {
    for (const reply of [thinkingCorpus[6], thinkingCorpus[7], thinkingCorpus[9], thinkingCorpus[11], ...corpus]) {
      const merged = merge(parse(reply), reply);
      expect(merged.thinking, JSON.stringify(reply)).toBeUndefined();
      expect(merged, JSON.stringify(reply)).toEqual(referenceParse(reply));
    }
    expect(merge(parse(thinkingCorpus[6])).blocks.map((item) => item.kind)).toEqual(["text", "code"]);
  });

  it("matches the reference reading for every chunk size and one character at a time", () => {
    for (const reply of thinkingCorpus) {
      const expected = referenceWithThinking(reply);
      expect(merge(parse(reply), reply), JSON.stringify(reply)).toEqual(expected);
      for (let size = 1; size <= 11; size++) {
        const chunks: string[] = [];
        for (let i = 0; i < reply.length; i += size) chunks.push(reply.slice(i, i + size));
        expect(merge(parseChunks(chunks), reply), `${JSON.stringify(reply)} in chunks of ${size}`).toEqual(expected);
      }
    }
  });

  const thinkingPieces = [
    "<think>",
    "<thinking>",
    "</think>",
    "</thinking>",
    "<thin",
    "k>",
    "</",
    "<",
    ">",
    "think",
    "ing",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "a",
    "😀",
    "\uD83D",
    "\uDE00",
    "\n```tsx agent.run\n",
    "\n```\n",
    "console.log(1);",
    '\n```json agent.data => "x"\n',
    "[1,",
  ];
  const thinkingReply = fc
    .tuple(
      fc.constantFrom("", " ", "\n\n", "\t \r\n"),
      fc.constantFrom("<think>", "<thinking>", "<thin", ""),
      fc.array(fc.constantFrom(...thinkingPieces), { maxLength: 40 }),
    )
    .map(([lead, open, parts]) => lead + open + parts.join(""));

  it("is chunk-invariant and agrees with the reference reading on random replies cut at random points (fast-check)", () => {
    fc.assert(
      fc.property(
        thinkingReply.chain((reply) =>
          fc
            .array(fc.integer({ min: 0, max: reply.length }), { maxLength: 20 })
            .map((points) => [reply, points] as const),
        ),
        ([reply, points]) => {
          const whole = merge(parse(reply), reply);
          expect(whole).toEqual(referenceWithThinking(reply));
          expect(merge(parseChunks(cut(reply, points)), reply)).toEqual(whole);
          expect(merge(parseChunks(everyChar(reply)), reply)).toEqual(whole);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("splitThinking gives the answer the parser reads, for the model's later turns", () => {
    expect(splitThinking(thinkingCorpus[0])).toEqual({
      thinking: "\nLet me try:\n```tsx agent.run\nalert('draft')\n```\nbetter not.\n",
      answer: "Here it is:\n```tsx agent.run\nconsole.log(1)\n```\n",
      unterminated: false,
    });
    expect(splitThinking("No thinking here.\n")).toEqual({
      thinking: undefined,
      answer: "No thinking here.\n",
      unterminated: false,
    });
    expect(splitThinking("<think>cut")).toEqual({ thinking: "cut", answer: "", unterminated: true });
    fc.assert(
      fc.property(thinkingReply, (reply) => {
        const { answer, thinking } = splitThinking(reply);
        const { thinking: parsed, ...blocks } = merge(parse(reply), reply);
        // The answer read as plain protocol (a second leading tag in it is not thinking any more).
        expect(referenceParse(answer)).toEqual(blocks);
        expect(thinking).toBe(parsed?.text);
      }),
      { numRuns: 1000 },
    );
  });

  it("examines each character a bounded number of times, however the section is cut", () => {
    const size = 100_000;
    for (const input of [
      "<think>" + "<".repeat(size) + "</think>x",
      "<thinking>" + "</thinkin".repeat(size / 10),
      " ".repeat(size) + "<think>x",
    ]) {
      expect(examinedFor(input, 1), JSON.stringify(input.slice(0, 30))).toBeLessThanOrEqual(4 * input.length);
    }
  });
});
