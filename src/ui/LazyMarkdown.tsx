import { lazy, memo, Suspense } from "react";
import { PROGRESSIVE_FROM_CHARS } from "./markdownSegments";

/**
 * Markdown.tsx behind a dynamic import, so marked and react-markdown (~45 KB
 * gzipped) are not part of the JavaScript the page needs before the composer
 * works (`app.initialJsGzipKB`, `app.interactiveMs` in bench/). The chunk is
 * requested by the first block drawn, or by `preloadMarkdown` (main.tsx,
 * once the session is open and the page idle), so it is normally there
 * before the first reply; until then a block shows its text as it is, up to
 * PROGRESSIVE_FROM_CHARS (what Markdown.tsx draws in its first task): the
 * whole of a reply of millions of characters in one text node took seconds
 * of layout in one task.
 */
let pending: Promise<typeof import("./Markdown")> | undefined;
export const preloadMarkdown = () => (pending ??= import("./Markdown"));
const Loaded = lazy(() => preloadMarkdown().then((module) => ({ default: module.Markdown })));

/**
 * Memoised: a streaming reply re-renders its message each frame, and only its last text block changes.
 * `streaming` (the block belongs to a reply still streaming) matters only when the block mounts: it then
 * shows nothing until its first parse, which runs in a deferred render rather than in the frame's. The
 * reply ending does not re-render its blocks.
 */
export const Markdown = memo(
  function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
    return (
      <Suspense
        fallback={<div className="lm-markdown lm-markdown--loading">{text.slice(0, PROGRESSIVE_FROM_CHARS)}</div>}
      >
        <Loaded text={text} streaming={streaming} />
      </Suspense>
    );
  },
  (before, after) => before.text === after.text,
);
