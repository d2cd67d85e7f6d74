import {
  memo,
  startTransition,
  useCallback,
  useDeferredValue,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import { toJsxRuntime, type Components } from "hast-util-to-jsx-runtime";
import { urlAttributes } from "html-url-attributes";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified, type PluggableList, type Processor } from "unified";
import { marked } from "marked";
import { RemoteImage, remoteImageUrl } from "../render/RemoteImage";
import { isShareLink } from "../render/sanitizeUrl";
import { CopyButton } from "./CopyButton";
import { CodeFence } from "./CodeFence";
import {
  PARSE_LIMIT_CHARS,
  PROGRESSIVE_FROM_CHARS,
  SEGMENT_CHARS,
  segmentGrowingText,
  type Segment,
  type Segmentation,
} from "./markdownSegments";

/**
 * Streaming Markdown: the text is cut into top-level blocks with marked's
 * lexer (GFM, so a table is one block) and each block is rendered by
 * react-markdown's pipeline (unified: remark-parse, remark-gfm for tables,
 * task lists, ~~strikethrough~~ and autolinks, remark-rehype,
 * hast-util-to-jsx-runtime) behind `memo`, so while a reply streams only the
 * growing last block re-renders. The pipeline is react-markdown's, with its
 * processor built once instead of for every parse (building it, with
 * remark-gfm's extensions, was ~40 % of the parse time of a streaming block;
 * `host.cpuMsPer1kTokens` in bench/). A table being streamed is a paragraph
 * until its delimiter row arrives, then a table that gains rows. Raw HTML is
 * never rendered (it is dropped), and links get safe attributes.
 *
 * Fenced code is highlighted (CodeFence.tsx; shiki loads on first use) and
 * math rendered with KaTeX (math.ts, loaded the first time a reply holds a
 * `$`). Both are streaming-safe: a fence still open is highlighted at most
 * every 200 ms with its newest lines plain; a block with an unclosed `$$`
 * shows its text as written until the closing `$$` arrives, so half-written
 * TeX never flashes as a KaTeX error.
 */
// One tilde is too common in prose ("~5 min") to mean strikethrough.
const REMARK_PLUGINS: PluggableList = [[remarkGfm, { singleTilde: false }]];

type Plugins = PluggableList;
interface MathPlugins {
  remark: Plugins;
  rehype: Plugins;
  prepare: (source: string) => string;
  /** Built on first use: the processor with math. */
  processor?: MarkdownProcessor;
}

type MarkdownProcessor = Processor<any, any, any, any, any>;

/** react-markdown's processor (remark-parse, the plugins, remark-rehype keeping raw HTML as `raw` nodes for `toReact` to drop), frozen. */
function buildProcessor(remark: Plugins, rehype: Plugins = []): MarkdownProcessor {
  return unified()
    .use(remarkParse)
    .use(remark)
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehype)
    .freeze() as MarkdownProcessor;
}

let plainProcessor: MarkdownProcessor | undefined;

interface HastParent {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastParent[];
  value?: string;
}

/**
 * What react-markdown does after the pipeline, with its options here
 * (`skipHtml`, `urlTransform`): raw HTML is dropped, every URL attribute
 * goes through `safeUrl`, and the tree becomes React elements (keys and the
 * hast node passed to components).
 */
function toReact(tree: HastParent, components: Components): ReactNode {
  const clean = (node: HastParent) => {
    if (!node.children) return;
    node.children = node.children.filter((child) => child.type !== "raw");
    for (const child of node.children) {
      if (child.type === "element" && child.properties) {
        for (const key in urlAttributes) {
          if (!Object.hasOwn(urlAttributes, key) || !Object.hasOwn(child.properties, key)) continue;
          const tags = urlAttributes[key];
          if (tags === null || tags.includes(child.tagName ?? ""))
            child.properties[key] = safeUrl(String(child.properties[key] || ""));
        }
      }
      clean(child);
    }
  };
  clean(tree);
  return toJsxRuntime(tree as Parameters<typeof toJsxRuntime>[0], {
    Fragment,
    components,
    ignoreInvalidStyle: true,
    jsx,
    jsxs,
    passKeys: true,
    passNode: true,
  });
}

/** One Markdown block as React elements. */
export function renderMarkdown(source: string, components: Components, math?: MathPlugins): ReactNode {
  const processor = math
    ? (math.processor ??= buildProcessor(math.remark, math.rehype))
    : (plainProcessor ??= buildProcessor(REMARK_PLUGINS));
  const text = math ? math.prepare(source) : source;
  // The file carries the text: plugins read it (remarkDollarGuard).
  return toReact(processor.runSync(processor.parse(text), text) as HastParent, components);
}

/**
 * Runs the pipeline once on a small sample (marked's lexer, remark, rehype, the JSX runtime), while the page is
 * idle before the first reply (LazyMarkdown.tsx `preloadMarkdown`): a function's first call compiles it, and
 * the first reply's first redraws paid for compiling the whole pipeline.
 */
export function warmUp(): void {
  const sample =
    "## A\n\nSome **bold**, `code` and a [link](https://example.com).\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
  for (const token of marked.lexer(sample)) renderMarkdown(token.raw, SETTLED_COMPONENTS);
}

let math: MathPlugins | undefined;
let mathLoading: Promise<MathPlugins> | undefined;

/** Load KaTeX and the math plugins (once). Exported for tests, which render synchronously. */
export function loadMath(): Promise<MathPlugins> {
  mathLoading ??= import("./math").then((module) => {
    math = {
      remark: [...REMARK_PLUGINS, ...module.REMARK_MATH_PLUGINS] as Plugins,
      rehype: module.REHYPE_MATH_PLUGINS as Plugins,
      prepare: module.escapeCurrency,
    };
    return math;
  });
  return mathLoading;
}

function useMath(needed: boolean): MathPlugins | undefined {
  const [loaded, setLoaded] = useState(math);
  useEffect(() => {
    if (!needed || loaded) return;
    let alive = true;
    loadMath().then(
      (plugins) => alive && setLoaded(plugins),
      () => {},
    );
    return () => {
      alive = false;
    };
  }, [needed, loaded]);
  return needed ? (loaded ?? math) : undefined;
}

/** `$$` opens and closes display math: an odd count means the block is still inside one. */
function hasOpenDisplayMath(source: string): boolean {
  return ((source.match(/\$\$/g) ?? []).length & 1) === 1;
}

interface HastLike {
  type: string;
  tagName?: string;
  value?: string;
  properties?: { className?: unknown };
  children?: HastLike[];
}

function textOf(node: HastLike): string {
  return node.type === "text" ? (node.value ?? "") : (node.children ?? []).map(textOf).join("");
}

function fenceComponents(settled: boolean): Components {
  return {
    // A link with no safe URL (refused by `safeUrl`) is its text.
    a: ({ href, children }) =>
      href ? (
        <a href={href} target="_blank" rel="noopener noreferrer nofollow">
          {children}
        </a>
      ) : (
        <span className="lm-link-dropped">{children}</span>
      ),
    // Wide tables scroll inside the reply instead of widening the page.
    table: ({ children }) => (
      <div className="lm-table-wrap">
        <table>{children}</table>
      </div>
    ),
    // Remote images load only once the network capability covers their host (a placeholder with Load until then).
    img: ({ alt, src }) => {
      const remote = remoteImageUrl(src);
      return remote ? (
        <RemoteImage url={remote} alt={alt} />
      ) : (
        <span className="lm-image-placeholder">[image: {alt || "untitled"}]</span>
      );
    },
    pre: ({ node, children }) => {
      const code = (node as HastLike | undefined)?.children?.find(
        (child) => child.type === "element" && child.tagName === "code",
      );
      if (!code) return <pre>{children}</pre>;
      const classes = Array.isArray(code.properties?.className) ? (code.properties.className as string[]) : [];
      const lang = classes.find((name) => name.startsWith("language-"))?.slice("language-".length);
      const source = textOf(code);
      // Every code block can be copied as written.
      return (
        <div className="lm-pre">
          <CopyButton text={source} title="Copy this code block" />
          <CodeFence code={source} lang={lang} settled={settled} />
        </div>
      );
    },
  };
}

const SETTLED_COMPONENTS = fenceComponents(true);
const STREAMING_COMPONENTS = fenceComponents(false);

/**
 * The last blocks rendered: a deferred render that a frame's update
 * interrupts starts over, and its blocks would be parsed again (React
 * elements are immutable, so a block's are reused). Math plugins load once.
 */
const RECENT_BLOCKS = 64;
const recentBlocks = new Map<string, ReactNode>();

function renderBlock(source: string, settled: boolean, math: MathPlugins | undefined): ReactNode {
  const key = `${settled ? "s" : "-"}${math ? "m" : "-"}${source}`;
  let rendered = recentBlocks.get(key);
  if (rendered === undefined) {
    rendered = renderMarkdown(source, settled ? SETTLED_COMPONENTS : STREAMING_COMPONENTS, math);
    if (recentBlocks.size >= RECENT_BLOCKS) recentBlocks.delete(recentBlocks.keys().next().value!);
  } else {
    recentBlocks.delete(key);
  }
  recentBlocks.set(key, rendered);
  return rendered;
}

const MarkdownBlock = memo(function MarkdownBlock({
  source,
  settled,
  math,
}: {
  source: string;
  settled: boolean;
  math: MathPlugins | undefined;
}) {
  // Too long to parse within a frame's budget (markdownSegments.ts): shown as written.
  if (source.length > PARSE_LIMIT_CHARS) return <PlainText text={source} />;
  const withMath = math && !hasOpenDisplayMath(source) ? math : undefined;
  return renderBlock(source, settled, withMath);
});

function PlainText({ text }: { text: string }) {
  return <div className="lm-markdown-plain">{text}</div>;
}

/**
 * Links and images keep only http(s), mailto and in-page `#` URLs; a link
 * that would open a shared session (`#share=…`, here or on any origin) is
 * dropped too: the model must not hand the person a session of its making.
 */
function safeUrl(url: string): string {
  return /^(https?:|mailto:|#)/i.test(url) && !isShareLink(url) ? url : "";
}

/**
 * Whether a block will not change any more as the text grows: anything but
 * the last block, and a last block that is a fence with its closing line.
 */
function fenceClosed(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  if (!open) return false;
  const lines = raw.replace(/\n+$/, "").split("\n");
  if (lines.length < 2) return false;
  const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[lines.length - 1]);
  return !!close && close[1][0] === open[1][0] && close[1].length >= open[1].length;
}

export function Markdown({ text: latest, streaming = false }: { text: string; streaming?: boolean }) {
  // While a reply streams, the timeline's render (every frame) keeps the text it had and parsing the grown
  // text follows as its own, interruptible render: the frame's task stays short (host.longestTaskMs2000tps).
  // A block that appears in a streaming reply starts empty and parses in that deferred render too (at
  // 2,000 tok/s each frame brings whole new blocks, and their first parse was most of the frame's task).
  const text = useDeferredValue(latest, streaming ? "" : undefined);
  const mathPlugins = useMath(text.includes("$"));
  return (
    <div className="lm-markdown">
      <Segments text={text} math={mathPlugins} />
    </div>
  );
}

/** The text's top-level blocks (marked's lexer), each rendered once (memo). */
const Blocks = memo(function Blocks({
  text,
  math,
  last,
}: {
  text: string;
  math: MathPlugins | undefined;
  /** The text ends the message: its last fence may still be streaming. */
  last: boolean;
}) {
  const blocks = useMemo(() => {
    try {
      const tokens = marked.lexer(text);
      return tokens.map((token, index) => ({
        raw: token.raw,
        settled: !last || index < tokens.length - 1 || token.type !== "code" || fenceClosed(token.raw),
      }));
    } catch {
      return [{ raw: text, settled: false }];
    }
  }, [text, last]);
  return blocks.map((block, index) => (
    <MarkdownBlock key={index} source={block.raw} settled={block.settled} math={math} />
  ));
});

/** What one task of drawing a long message should take at most, roughly (the step adapts to it). */
const SEGMENT_TASK_MS = 40;
/** The most one step draws: its DOM is inserted in one commit, one task. */
const MAX_STEP_CHARS = 4 * SEGMENT_CHARS;
/**
 * The characters one step inserts where segments wait as plain text until they near the view (LAZY_SEGMENTS):
 * a step is then a few dozen boxes of text whose layout is skipped off screen, not Markdown to parse.
 */
const PLAIN_STEP_CHARS = 256_000;

/**
 * Whether the browser says when a `content-visibility: auto` box nears the view
 * (`contentvisibilityautostatechange`: Chromium 108+, Firefox 130+, Safari 18+). Where it does, a long
 * message's segments are inserted as plain text and each is parsed as Markdown once it nears the view,
 * for good; elsewhere (and on the server) every segment is parsed as it is drawn.
 */
const LAZY_SEGMENTS =
  typeof HTMLElement !== "undefined" && "oncontentvisibilityautostatechange" in HTMLElement.prototype;

/** Run `task` in a later task (a MessageChannel post: not clamped like setTimeout). */
function later(task: () => void): () => void {
  if (typeof MessageChannel === "undefined") {
    const handle = setTimeout(task, 0);
    return () => clearTimeout(handle);
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => task();
  channel.port2.postMessage(null);
  return () => channel.port1.close();
}

/**
 * A long message (markdownSegments.ts): its segments are drawn a step at a
 * time. Where the browser tells when a box nears the view (LAZY_SEGMENTS), a
 * step inserts PLAIN_STEP_CHARS of segments as plain text, and a segment is
 * parsed when it nears the view: a message of millions of characters then
 * keeps a DOM of a few thousand nodes (its layout, style and the garbage
 * collector's marking of the page stay short), and no task parses more than
 * a segment's blocks. Elsewhere a step parses at most MAX_STEP_CHARS, in a
 * transition React renders in slices.
 */
function Segments({ text, math }: { text: string; math: MathPlugins | undefined }) {
  // A streaming reply's text grows: it is cut again only after its last cut at a blank line, and the segments
  // before keep their objects, so their views are skipped (a frame's render does not scale with the reply).
  const cutBefore = useRef<Segmentation | undefined>(undefined);
  const segments = useMemo(() => {
    if (text.length <= PROGRESSIVE_FROM_CHARS) return [{ text, plain: false }];
    cutBefore.current = segmentGrowingText(text, cutBefore.current);
    return cutBefore.current.segments;
  }, [text]);
  // Characters drawn so far (what was drawn stays drawn as the text grows; a short message is drawn at once).
  const [drawn, setDrawn] = useState(LAZY_SEGMENTS ? PLAIN_STEP_CHARS : PROGRESSIVE_FROM_CHARS);
  let visible = 0;
  for (let start = 0; visible < segments.length && (visible === 0 || start < drawn); visible += 1)
    start += segments[visible].text.length;
  // How much the next task draws: more while a task stays short, less when one runs long.
  const step = useRef(LAZY_SEGMENTS ? PLAIN_STEP_CHARS : SEGMENT_CHARS);
  const renderedAt = useRef(0);
  renderedAt.current = performance.now();
  useEffect(() => {
    if (visible >= segments.length) return;
    if (!LAZY_SEGMENTS) {
      const took = performance.now() - renderedAt.current;
      if (took < SEGMENT_TASK_MS / 2) step.current = Math.min(step.current * 2, MAX_STEP_CHARS);
      else if (took > SEGMENT_TASK_MS) step.current = Math.max(SEGMENT_CHARS, step.current >> 1);
    }
    // In a transition: React renders it in slices of a few milliseconds, yielding between blocks, so the
    // parse of a step is spread over tasks whatever the machine's speed (a plain update renders in one task).
    return later(() => startTransition(() => setDrawn((chars) => chars + step.current)));
  }, [drawn, visible, segments.length]);
  const boxed = segments.length > 1;
  return segments
    .slice(0, visible)
    .map((segment, index) => (
      <SegmentView key={index} segment={segment} math={math} last={index === segments.length - 1} boxed={boxed} />
    ));
}

const SegmentView = memo(function SegmentView({
  segment,
  math,
  last,
  boxed,
}: {
  segment: Segment;
  math: MathPlugins | undefined;
  last: boolean;
  /** One of several: its own layout box, skipped while off screen, so drawing the next does not lay out the ones before. */
  boxed: boolean;
}) {
  // Plain text until the box nears the view (LAZY_SEGMENTS), then Markdown for good; the message's last segment
  // (where a streaming reply grows, and where a session opens) is Markdown from the start.
  const [near, setNear] = useState(!boxed || !LAZY_SEGMENTS || last);
  // Listened to from the box's creation (a ref callback runs in the commit, before the browser's first look at
  // the box), so the first "relevant" of a box drawn in view is not missed.
  const watch = useCallback(
    (box: HTMLDivElement | null) => {
      if (!box || near || segment.plain) return;
      const nearing = (event: Event) => {
        if ((event as Event & { skipped?: boolean }).skipped === false) startTransition(() => setNear(true));
      };
      box.addEventListener("contentvisibilityautostatechange", nearing);
      return () => box.removeEventListener("contentvisibilityautostatechange", nearing);
    },
    [near, segment.plain],
  );
  // (A class change only: a message growing past one segment keeps what it drew.)
  return (
    <div
      ref={watch}
      className={boxed ? "lm-segment lm-segment--boxed" : "lm-segment"}
      data-parsed={segment.plain || !near ? undefined : ""}
    >
      {segment.plain || !near ? (
        <PlainText text={segment.text} />
      ) : (
        <Blocks text={segment.text} math={math} last={last} />
      )}
    </div>
  );
});
