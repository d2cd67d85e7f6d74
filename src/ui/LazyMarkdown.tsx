import { memo } from "react";
import { loadedModule } from "./loadedModule";
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
 * of layout in one task. Not behind Suspense (loadedModule.ts).
 */
const markdownModule = loadedModule(() => import("./Markdown"));
export const preloadMarkdown = () => markdownModule.preload();
/**
 * The chunk, then, in an idle moment of its own, its pipeline run once on a sample (Markdown.tsx `warmUp`):
 * main.tsx's prefetch once the session is open, so the first reply's first redraws do not compile it.
 */
export const warmUpMarkdown = () =>
  markdownModule.preload().then(
    (module) =>
      new Promise<void>((done) => {
        const run = () => {
          module.warmUp();
          done();
        };
        if (typeof requestIdleCallback === "function") requestIdleCallback(run, { timeout: 2_000 });
        else setTimeout(run, 0);
      }),
  );

/**
 * Memoised: a streaming reply re-renders its message each frame, and only its last text block changes.
 * `streaming` (the block belongs to a reply still streaming) matters only when the block mounts: it then
 * shows nothing until its first parse, which runs in a deferred render rather than in the frame's. The
 * reply ending does not re-render its blocks.
 */
export const Markdown = memo(
  function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
    // Not suspending (loadedModule.ts): drawn in the render right after the chunk arrives.
    const loaded = markdownModule.use();
    if (!loaded) return <div className="lm-markdown lm-markdown--loading">{text.slice(0, PROGRESSIVE_FROM_CHARS)}</div>;
    return <loaded.Markdown text={text} streaming={streaming} />;
  },
  (before, after) => before.text === after.text,
);
