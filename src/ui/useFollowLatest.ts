/**
 * The timeline follows new content the way chat apps do (use-stick-to-bottom
 * does the watching): while the reader is at or near the bottom, anything
 * that makes the timeline taller — streamed prose, a code block, a panel
 * drawing itself — keeps the bottom in view. Scrolling up (wheel, touch,
 * keys, the scrollbar) stops following; `jump` scrolls back down and
 * follows again, and so does sending a message. Clicks inside the timeline
 * are not scrolling and never stop it.
 *
 * Only the person stops it. The watcher takes any scroll upwards for the
 * reader's, and the browser scrolls up by itself when the timeline shrinks
 * (restored panels replaced by Revive, a block collapsing) — a scroll that
 * still ends at the very bottom. Such an escape, with no wheel, touch, key,
 * scrollbar press or text selection before it, is undone at once; a scroll
 * that leaves the bottom (the person's, or one that brings an element into
 * view) stops following as before. A scroll up after the person's wheel,
 * touch, key or scrollbar press stops it at once, in the scroll event: the
 * layout that follows it (held messages sized as they come near, panels
 * drawing) must not make the watcher take it for the page's and scroll back
 * down.
 *
 * An empty session is not followed: its first screen (the welcome, taller
 * than a phone) opens at its top, and the timeline is watched from the
 * first message on (sending it jumps to the bottom, as always).
 *
 * Following matters beyond comfort: panels are drawn only near the viewport
 * (render/useDeferredDraw.ts), so a new panel below the fold stays undrawn
 * until something brings it near.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { useStickToBottom } from "use-stick-to-bottom";

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

/** A scroll up that ends farther than this from the bottom leaves it (the watcher's own "near the bottom"). */
const LEAVES_BOTTOM_PX = 70;

/** What the person does on the timeline that may scroll it (keys are heard on the whole page). */
const INTENT_EVENTS = ["wheel", "touchstart", "touchmove", "pointerdown"] as const;

function isIntent(event: Event, scroller: HTMLElement): boolean {
  if (event.type === "keydown") {
    const { key, ctrlKey, metaKey, target } = event as KeyboardEvent;
    if ((ctrlKey || metaKey) && key.toLowerCase() === "f") return true;
    // Typing in a field moves its caret, not the timeline; any other key may (Tab brings the focus into view).
    const typing =
      target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    return !typing || key === "Tab";
  }
  // A press on the scroller itself (its scrollbar, its margins), not on a button inside it.
  if (event.type === "pointerdown") return event.target === scroller;
  return true;
}

function selectionInside(scroller: HTMLElement): boolean {
  const selection = typeof getSelection === "function" ? getSelection() : null;
  return !!selection && !selection.isCollapsed && scroller.contains(selection.anchorNode);
}

/** A pointer is down on the page (with a selection inside the timeline: a drag-selection, not followed meanwhile). */
let pressing = false;
if (typeof document !== "undefined") {
  document.addEventListener("pointerdown", () => void (pressing = true), { capture: true, passive: true });
  document.addEventListener("pointerup", () => void (pressing = false), { capture: true, passive: true });
  document.addEventListener("pointercancel", () => void (pressing = false), { capture: true, passive: true });
}

/**
 * The timeline's growth, followed within the frame that laid it out. (The watcher's own observer scrolls from a
 * chain of animation frames — three or four frames of the page's work per growth; without them a fast stream
 * costs 5 % less main-thread time — and its "near the bottom" flag, set false by each growth and true by the scroll that
 * follows, re-rendered the follow twice per redraw.) While the watcher is at the bottom, a growth scrolls there
 * at once, through the watcher's own `scrollTop` (a scroll it knows it made); otherwise the watcher re-reads how
 * near the bottom the view is (a scroll event of its own), so "Jump to latest" shows when new content arrives
 * below. A shrink is the watcher's case as before: its scroll handler ignores the clamp it causes, and a view
 * left near the bottom follows again.
 */
function followGrowth(
  content: HTMLElement,
  state: ReturnType<typeof useStickToBottom>["state"],
  scroller: () => HTMLElement | null,
  relock: () => void,
): ResizeObserver {
  let previous: number | undefined;
  const observer = new ResizeObserver(([entry]) => {
    const height = entry.contentRect.height;
    const difference = height - (previous ?? height);
    previous = height;
    const element = scroller();
    if (!element) return;
    if (state.scrollTop > state.targetScrollTop) state.scrollTop = state.targetScrollTop;
    if (difference >= 0) {
      if (state.isAtBottom && !(pressing && selectionInside(element))) {
        if (state.scrollTop < state.targetScrollTop) state.scrollTop = state.targetScrollTop;
      } else {
        element.dispatchEvent(new Event("scroll"));
      }
      return;
    }
    state.resizeDifference = difference;
    if (state.isNearBottom) relock();
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (state.resizeDifference === difference) state.resizeDifference = 0;
      }, 1),
    );
  });
  observer.observe(content);
  return observer;
}

export function useFollowLatest({ empty = false }: { empty?: boolean } = {}): FollowLatest {
  // New content is followed at once (a spring would trail a fast stream); the jump glides unless motion is reduced.
  const follow = useStickToBottom({ initial: "instant", resize: "instant" });
  const { scrollToBottom, stopScroll, escapedFromLock, scrollRef: watch, contentRef: watchContent, state } = follow;
  const scroller = useRef<HTMLElement | null>(null);
  /** The person did something that scrolls since the timeline last followed. */
  const intent = useRef(false);
  /** The last scroll ended at the very bottom (a clamp after a shrink does; a scroll away does not). */
  const atBottom = useRef(true);
  const detach = useRef<(() => void) | undefined>(undefined);

  const scrollRef = useCallback(
    (element: HTMLElement | null) => {
      watch(element);
      detach.current?.();
      detach.current = undefined;
      scroller.current = element;
      if (!element) return;
      const note = (event: Event) => {
        if (isIntent(event, element)) intent.current = true;
      };
      let lastTop = element.scrollTop;
      const scrolled = () => {
        const below = element.scrollHeight - element.scrollTop - element.clientHeight;
        const up = element.scrollTop < lastTop;
        lastTop = element.scrollTop;
        atBottom.current = below <= 2;
        // The person scrolled up, away from the bottom: stop following now, whatever the layout does next. (The
        // watcher decides a timer later and takes a scroll beside a change of the timeline's height for the page's:
        // messages laid out as they come near — held ones, drawn panels — left it following and pulled the view down.)
        if (up && intent.current && below > LEAVES_BOTTOM_PX) stopScroll();
      };
      element.addEventListener("scroll", scrolled, { passive: true });
      for (const type of INTENT_EVENTS) element.addEventListener(type, note, { passive: true, capture: true });
      // Keys scroll the timeline wherever the focus is (the composer, the page).
      const page = element.ownerDocument;
      page.addEventListener("keydown", note, { capture: true });
      detach.current = () => {
        for (const type of INTENT_EVENTS) element.removeEventListener(type, note, { capture: true });
        page.removeEventListener("keydown", note, { capture: true });
        element.removeEventListener("scroll", scrolled);
      };
    },
    [watch, stopScroll],
  );

  // The content is watched only once there is a message: a growing welcome (its lazy parts arriving) is not followed.
  // A new callback when `empty` changes makes React detach the old one and attach this one to the same element.
  const grows = useRef<ResizeObserver | undefined>(undefined);
  const contentRef = useCallback(
    (element: HTMLElement | null) => {
      grows.current?.disconnect();
      grows.current = undefined;
      const content = empty ? null : element;
      // The watcher measures against the content element, but its own size observer is replaced by `followGrowth`.
      watchContent(content);
      if (!content) return;
      state.resizeObserver?.disconnect();
      grows.current = followGrowth(
        content,
        state,
        () => scroller.current,
        () => void scrollToBottom("instant"),
      );
    },
    [empty, watchContent, state, scrollToBottom],
  );

  const following = follow.isAtBottom;
  // Before the paint: a page-caused escape never shows "Jump to latest", not even for a frame.
  useLayoutEffect(() => {
    if (empty) return;
    if (!escapedFromLock) {
      intent.current = false;
      return;
    }
    const element = scroller.current;
    if (intent.current || !element || !atBottom.current || selectionInside(element)) return;
    // The timeline shrank under the view and the person did nothing: keep following.
    void scrollToBottom("instant");
    // `following` too: scrolling back down by code leaves the watcher's escape flag set, so a second escape the
    // page causes changes only `following` (without it, the second went unnoticed and the view stopped following).
  }, [empty, escapedFromLock, following, scrollToBottom]);

  // The first message starts the following (whoever sent it); a jump before it would have no content to reach.
  const wasEmpty = useRef(empty);
  useEffect(() => {
    if (wasEmpty.current && !empty) void scrollToBottom("instant");
    wasEmpty.current = empty;
  }, [empty, scrollToBottom]);

  const jump = useCallback(() => {
    if (wasEmpty.current) return;
    // Following again: the person's earlier scroll no longer explains an escape.
    intent.current = false;
    void scrollToBottom(reducedMotion() ? "instant" : "smooth");
  }, [scrollToBottom]);
  return { scrollRef, contentRef, atLatest: empty || follow.isAtBottom, jump };
}

/**
 * The page's hold on the follow, the same object for the page's life: the refs for the scroller and the
 * timeline, and `jump`. The follow itself (`useFollowLatest`, whose watcher changes its state as the timeline
 * grows and as the view catches up with it) lives in a small component that `useBindFollow` connects to this
 * handle, so those changes re-render that component only, not the page that holds the handle (its timeline,
 * composer and asks re-rendered twice per redraw of a streaming reply).
 */
export interface FollowHandle {
  scrollRef: (element: HTMLElement | null) => void;
  contentRef: (element: HTMLElement | null) => void;
  jump: () => void;
}

interface FollowSlot extends FollowHandle {
  scroller: HTMLElement | null;
  content: HTMLElement | null;
  bound: FollowLatest | undefined;
}

export function useFollowHandle(): FollowHandle {
  const [handle] = useState<FollowSlot>(() => {
    const slot: FollowSlot = {
      scroller: null,
      content: null,
      bound: undefined,
      scrollRef: (element) => {
        slot.scroller = element;
        slot.bound?.scrollRef(element);
      },
      contentRef: (element) => {
        slot.content = element;
        slot.bound?.contentRef(element);
      },
      jump: () => slot.bound?.jump(),
    };
    return slot;
  });
  return handle;
}

/** Connects `follow` to the page's `handle`: the elements it holds now and later, and its `jump`. */
export function useBindFollow(handle: FollowHandle, follow: FollowLatest): void {
  const slot = handle as FollowSlot;
  const { scrollRef, contentRef } = follow;
  // Before the paint, as a ref would be; whichever of the element and the follow comes second connects them.
  useLayoutEffect(() => {
    slot.bound = follow;
  });
  useLayoutEffect(() => {
    scrollRef(slot.scroller);
    return () => scrollRef(null);
  }, [slot, scrollRef]);
  useLayoutEffect(() => {
    contentRef(slot.content);
    return () => contentRef(null);
  }, [slot, contentRef]);
  useLayoutEffect(() => () => void (slot.bound = undefined), [slot]);
}
