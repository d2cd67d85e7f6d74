/**
 * The timeline follows new content the way chat apps do (the rules are in
 * followLatest.ts): while the reader is at the bottom, anything that makes
 * the timeline taller keeps the bottom in view; scrolling up stops it;
 * `jump` scrolls back down and follows again, and so does sending a message.
 * Clicks inside the timeline are not scrolling and never stop it.
 *
 * An empty session is not followed: its first screen (the welcome, taller
 * than a phone) opens at its top, and the timeline is watched from the
 * first message on (sending it jumps to the bottom, as always).
 *
 * Following matters beyond comfort: panels are drawn only near the viewport
 * (render/useDeferredDraw.ts), so a new panel below the fold stays undrawn
 * until something brings it near.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { FollowLatest as Follower } from "./followLatest";

export interface FollowLatest {
  /** On the scrolling element (`.lm-main`). */
  scrollRef: (element: HTMLElement | null) => void;
  /** On the element that grows (the timeline). */
  contentRef: (element: HTMLElement | null) => void;
  /** The reader is at the bottom (or following there): no "Jump to latest". */
  atLatest: boolean;
  /** Scroll to the bottom and follow again. */
  jump: () => void;
}

const reducedMotion = () => typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;

export function useFollowLatest({ empty = false }: { empty?: boolean } = {}): FollowLatest {
  const [atLatest, setAtLatest] = useState(true);
  const follower = useRef<Follower | null>(null);
  // Detached by React calling the two refs with null.
  follower.current ??= new Follower(() => setAtLatest(follower.current!.atLatest));

  const scrollRef = useCallback((element: HTMLElement | null) => follower.current!.setScroller(element), []);
  // The content is watched only once there is a message: a growing welcome (its lazy parts arriving) is not followed.
  // A new callback when `empty` changes makes React detach the old one and attach this one to the same element.
  const contentRef = useCallback(
    (element: HTMLElement | null) => follower.current!.setContent(empty ? null : element),
    [empty],
  );

  // The first message starts the following (whoever sent it); a jump before it would have no content to reach.
  const wasEmpty = useRef(empty);
  useEffect(() => {
    if (wasEmpty.current && !empty) follower.current!.jump();
    wasEmpty.current = empty;
  }, [empty]);

  const jump = useCallback(() => {
    if (wasEmpty.current) return;
    follower.current!.jump(!reducedMotion());
  }, []);
  return { scrollRef, contentRef, atLatest: empty || atLatest, jump };
}
