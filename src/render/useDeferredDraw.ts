/**
 * Off-screen mounts are drawn lazily: a panel near the viewport draws at
 * once, the others one per idle slot (so a restored session with dozens of
 * big mounts never costs one long task), and any panel that scrolls near
 * the viewport jumps the queue. Once drawn, a panel stays drawn.
 *
 * Without IntersectionObserver (Node tests, old engines) everything draws at once.
 */
import { useEffect, useState, type RefObject } from "react";

const queue: (() => void)[] = [];
let pumping = false;

function pump(): void {
  const next = queue.shift();
  if (!next) {
    pumping = false;
    return;
  }
  next();
  const idle = (globalThis as { requestIdleCallback?: (callback: () => void, options: { timeout: number }) => number }).requestIdleCallback;
  if (idle) idle(pump, { timeout: 100 });
  else setTimeout(pump, 16);
}

function enqueue(draw: () => void): () => void {
  queue.push(draw);
  if (!pumping) {
    pumping = true;
    setTimeout(pump, 0);
  }
  return () => {
    const index = queue.indexOf(draw);
    if (index >= 0) queue.splice(index, 1);
  };
}

export function useDeferredDraw(ref: RefObject<Element | null>): boolean {
  const [drawn, setDrawn] = useState(() => typeof IntersectionObserver === "undefined");
  useEffect(() => {
    if (drawn || !ref.current) return;
    const draw = () => setDrawn(true);
    const dequeue = enqueue(draw);
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) draw();
      },
      { rootMargin: "800px 0px" },
    );
    observer.observe(ref.current);
    return () => {
      observer.disconnect();
      dequeue();
    };
  }, [drawn, ref]);
  return drawn;
}
