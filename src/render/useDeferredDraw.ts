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
 * The margins are measured from the panel's scrolling ancestor (the
 * timeline), not the window: against the window, a scrolling ancestor clips
 * the panel first and the margins would count for nothing — a panel just
 * below the timeline's fold would stay undrawn until scrolled into sight.
 *
 * Without IntersectionObserver (Node tests, old engines) everything draws at once.
 */
import { useEffect, useState, type RefObject } from "react";

export const DRAW_MARGIN = "800px 0px";
export const KEEP_MARGIN = "3000px 0px";

export interface DeferredDraw {
  drawn: boolean;
  /** The panel's height when it was last put away (a placeholder keeps it). */
  height?: number;
}

/** The nearest ancestor that scrolls vertically (null: the window does). */
export function scrollingAncestor(element: Element): Element | null {
  for (let node = element.parentElement; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if (overflowY === "auto" || overflowY === "scroll" || overflowY === "overlay") return node;
  }
  return null;
}

export function useDeferredDraw(ref: RefObject<Element | null>): DeferredDraw {
  const [state, setState] = useState<DeferredDraw>(() => ({ drawn: typeof IntersectionObserver === "undefined" }));
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === "undefined") return;
    const root = scrollingAncestor(element);
    const near = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting))
          setState((current) => (current.drawn ? current : { drawn: true }));
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
