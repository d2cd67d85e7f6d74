/**
 * Off-screen mounts are drawn lazily, and only while near the viewport: a
 * panel draws once it comes within DRAW_MARGIN of the viewport, and is
 * put away again (keeping its last height, so nothing jumps) once it is
 * farther than KEEP_MARGIN. A session with dozens of big mounts (restored,
 * or flooded by generated code) then holds only the DOM of what the person
 * can see or scroll to soon: opening, drawing and leaving it (New session)
 * cost a few panels, not all of them. Values live in the store, not the
 * DOM, so nothing the person typed is lost.
 *
 * The margins are measured from the panel's nearest scrolling ancestor (the
 * timeline's `.lm-main`), used as the observers' root: an observer rooted at
 * the viewport clips its target by every scrolling ancestor before applying
 * its margin, so inside a scrolling timeline a panel would be put away as
 * soon as it left the timeline's visible box, and drawn only once inside it.
 *
 * Without IntersectionObserver (Node tests, old engines) everything draws at once.
 */
import { useEffect, useState, type RefObject } from "react";

export const DRAW_MARGIN = "800px 0px";
export const KEEP_MARGIN = "3000px 0px";

/**
 * The nearest ancestor that scrolls (overflow-y auto or scroll), or null for
 * the viewport. Elements of class `lm-mount` are skipped: the kit's sheet gives
 * every `.lm-mount` (a panel, and the timeline's wrapper around one)
 * `overflow: auto` for the panel's own content, which is not what moves it.
 */
export function scrollingAncestor(element: Element): Element | null {
  for (let parent = element.parentElement; parent && parent !== document.documentElement && parent !== document.body; parent = parent.parentElement) {
    if (parent.classList.contains("lm-mount")) continue;
    const { overflowY } = getComputedStyle(parent);
    if (overflowY === "auto" || overflowY === "scroll") return parent;
  }
  return null;
}

export interface DeferredDraw {
  drawn: boolean;
  /** The panel's height when it was last put away (a placeholder keeps it). */
  height?: number;
}

export function useDeferredDraw(ref: RefObject<Element | null>): DeferredDraw {
  const [state, setState] = useState<DeferredDraw>(() => ({ drawn: typeof IntersectionObserver === "undefined" }));
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === "undefined") return;
    const root = scrollingAncestor(element);
    const near = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setState((current) => (current.drawn ? current : { drawn: true }));
      },
      { root, rootMargin: DRAW_MARGIN },
    );
    const far = new IntersectionObserver(
      (entries) => {
        const entry = entries[entries.length - 1];
        if (entry && !entry.isIntersecting) {
          const height = entry.boundingClientRect.height;
          setState((current) => (current.drawn ? { drawn: false, height } : current));
        }
      },
      { root, rootMargin: KEEP_MARGIN },
    );
    near.observe(element);
    far.observe(element);
    return () => {
      near.disconnect();
      far.disconnect();
    };
  }, [ref]);
  return state;
}
