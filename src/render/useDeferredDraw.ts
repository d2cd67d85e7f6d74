/**
 * Off-screen mounts are drawn lazily: a panel draws once it comes within
 * DRAW_MARGIN of the viewport, and stays drawn. A session with dozens of big
 * mounts (restored, or flooded by generated code) then holds only the DOM
 * of what the person can scroll to soon: opening, drawing and leaving it
 * (New session) cost a few panels, not all of them.
 *
 * Without IntersectionObserver (Node tests, old engines) everything draws at once.
 */
import { useEffect, useState, type RefObject } from "react";

export const DRAW_MARGIN = "800px 0px";

export function useDeferredDraw(ref: RefObject<Element | null>): boolean {
  const [drawn, setDrawn] = useState(() => typeof IntersectionObserver === "undefined");
  useEffect(() => {
    if (drawn || !ref.current) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setDrawn(true);
      },
      { rootMargin: DRAW_MARGIN },
    );
    observer.observe(ref.current);
    return () => observer.disconnect();
  }, [drawn, ref]);
  return drawn;
}
