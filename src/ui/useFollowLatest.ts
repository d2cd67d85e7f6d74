/**
 * The timeline follows new content the way chat apps do (use-stick-to-bottom
 * does the watching): while the reader is at or near the bottom, anything
 * that makes the timeline taller — streamed prose, a code block, a panel
 * drawing itself — keeps the bottom in view. Scrolling up (wheel, touch,
 * keys, the scrollbar) stops following; `jump` scrolls back down and
 * follows again, and so does sending a message. Clicks inside the timeline
 * are not scrolling and never stop it.
 *
 * Following matters beyond comfort: panels are drawn only near the viewport
 * (render/useDeferredDraw.ts), so a new panel below the fold stays undrawn
 * until something brings it near.
 */
import { useCallback } from "react";
import { useStickToBottom } from "use-stick-to-bottom";

export interface FollowLatest {
  /** On the scrolling element (`.lm-main`). */
  scrollRef: ReturnType<typeof useStickToBottom>["scrollRef"];
  /** On the element that grows (the timeline). */
  contentRef: ReturnType<typeof useStickToBottom>["contentRef"];
  /** The reader is at the bottom (or following there): no "Jump to latest". */
  atLatest: boolean;
  /** Scroll to the bottom and follow again. */
  jump: () => void;
}

const reducedMotion = () => typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;

export function useFollowLatest(): FollowLatest {
  // New content is followed at once (a spring would trail a fast stream); the jump glides unless motion is reduced.
  const follow = useStickToBottom({ initial: "instant", resize: "instant" });
  const { scrollToBottom } = follow;
  const jump = useCallback(() => void scrollToBottom(reducedMotion() ? "instant" : "smooth"), [scrollToBottom]);
  return { scrollRef: follow.scrollRef, contentRef: follow.contentRef, atLatest: follow.isAtBottom, jump };
}
