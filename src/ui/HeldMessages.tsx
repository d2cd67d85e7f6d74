import {
  memo,
  startTransition,
  useCallback,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  type ReactNode,
} from "react";
import type { ChatMessage } from "../agent/types";
import { scrollingAncestor } from "../render/useDeferredDraw";
import { PROGRESSIVE_FROM_CHARS } from "./markdownSegments";
import { OPEN_DRAWN_MESSAGES, type drawnMessage } from "./Timeline";

/** How near the viewport (px, above and below) a waiting message is drawn. */
const DRAW_NEAR_PX = 800;

/** Held messages are drawn on the page in runs of at most this many (each run is laid out only near the view). */
const HELD_RUN = 40;
/** A held message's box (styles.css `.lm-held`): a reply's and any other message's, plus the timeline's gap. */
const heldHeight = (message: ChatMessage) => (message.role === "assistant" ? 480 : 48) + 14;

/**
 * How many of a long session's last messages are drawn when it opens: those
 * whose estimated heights (a held box's) fill `viewportPx`, at least one, at
 * most OPEN_DRAWN_MESSAGES. The others are held and those near the view are
 * drawn after the first paint, in a transition: the first render is only what
 * the person sees (issue 34 §1, `session.open2000LongestTaskMs`).
 */
export function openDrawnCount(messages: readonly ChatMessage[], viewportPx: number): number {
  let count = 0;
  let height = 0;
  while (count < Math.min(messages.length, OPEN_DRAWN_MESSAGES) && (count === 0 || height < viewportPx)) {
    height += heldHeight(messages[messages.length - 1 - count]);
    count += 1;
  }
  return count;
}

/**
 * A message of a long session not drawn yet: a box of about its height with
 * its text (find in page finds it, and scrolling there draws it). Focusable,
 * so the keyboard does not skip it: focusing it draws it. A huge message
 * holds only its first PROGRESSIVE_FROM_CHARS characters (laying out megabytes
 * of text in one box froze the page, as the Markdown chunk's stand-in did).
 */
const HeldMessage = memo(function HeldMessage({
  message,
  onFocus,
}: {
  message: ChatMessage;
  onFocus: (id: string) => void;
}) {
  return (
    <div
      className="lm-held"
      data-message-id={message.id}
      data-role={message.role}
      tabIndex={0}
      onFocus={() => onFocus(message.id)}
    >
      {message.text.length > PROGRESSIVE_FROM_CHARS ? message.text.slice(0, PROGRESSIVE_FROM_CHARS) : message.text}
    </div>
  );
});

const FOCUSABLE = "button:not([disabled]), a[href], summary, textarea, input, [tabindex]";

/**
 * Which messages wait as plain text: when a session opens with more than
 * OPEN_DRAWN_MESSAGES, all but its last ones (`openDrawnCount`: what fills
 * the window), and the older messages that
 * arrive before them (a long session opens on its newest messages, its
 * older ones follow: src/session). One comes within DRAW_NEAR_PX
 * of the viewport (scrolling, a jump, find in page) and it is drawn, in a
 * transition (no long task), for good; messages added later are always
 * drawn. The check on scroll finds the timeline's children near the view
 * by bisection (their boxes are in order), so it costs the same for 20
 * messages as for 2,000, and no observer watches each one.
 */
function useHeldMessages(messages: readonly ChatMessage[]) {
  const held = useRef<Set<string> | undefined>(undefined);
  /** The first message at the last render: older ones put before it are held. */
  const first = useRef<string | undefined>(undefined);
  /** The last message when the session opened: runs of held messages are counted back from it. */
  const anchor = useRef<string | undefined>(undefined);
  if (!held.current && messages.length > 0) {
    const drawn = openDrawnCount(messages, typeof innerHeight === "number" ? innerHeight : Infinity);
    held.current = new Set(messages.slice(0, messages.length - drawn).map((message) => message.id));
    anchor.current = messages.at(-1)!.id;
  }
  if (held.current && messages.length > 0 && messages[0].id !== first.current) {
    const before = first.current === undefined ? -1 : messages.findIndex((message) => message.id === first.current);
    for (let at = 0; at < before; at += 1) held.current.add(messages[at].id);
    first.current = messages[0].id;
  }
  const holding = (held.current?.size ?? 0) > 0;
  const [drawCount, redraw] = useReducer((count: number) => count + 1, 0);
  const timeline = useRef<{ element: HTMLElement; scroller: Element | null; detach: () => void } | undefined>(
    undefined,
  );
  const focusAfter = useRef<string | undefined>(undefined);
  // The held messages themselves come in a transition after the first paint: the session opens on its last messages.
  const [heldShown, showHeld] = useReducer(() => true, false);
  useEffect(() => {
    if (holding) startTransition(showHeld);
  }, [holding]);

  /** Draw the held messages near the view (`atEnd`: near the timeline's end, where the session opens). */
  const check = useCallback((atEnd = false) => {
    const ids = held.current;
    if (!timeline.current || !ids || ids.size === 0) return;
    const { element, scroller } = timeline.current;
    const view = scroller ? scroller.getBoundingClientRect() : { top: 0, bottom: innerHeight };
    const end = atEnd ? element.getBoundingClientRect().bottom : view.bottom;
    const top = end - (view.bottom - view.top) - DRAW_NEAR_PX;
    const bottom = end + DRAW_NEAR_PX;
    const items = element.children;
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (items[middle].getBoundingClientRect().bottom < top) low = middle + 1;
      else high = middle;
    }
    let drawn = false;
    for (let at = low; at < items.length; at += 1) {
      const item = items[at];
      if (item.getBoundingClientRect().top > bottom) break;
      // A run of held messages: those of its messages near the view.
      for (const message of item.classList.contains("lm-held-run") ? item.children : []) {
        const box = message.getBoundingClientRect();
        if (box.bottom >= top && box.top <= bottom && ids.delete((message as HTMLElement).dataset.messageId ?? ""))
          drawn = true;
      }
    }
    if (drawn) startTransition(redraw);
  }, []);

  const watch = useCallback(
    (element: HTMLElement | null) => {
      const parent = element?.parentElement;
      if (!parent || timeline.current) return;
      const scroller = scrollingAncestor(parent);
      let frame = 0;
      const onScroll = () => {
        frame ||= requestAnimationFrame(() => {
          frame = 0;
          check();
        });
      };
      const target = scroller ?? window;
      target.addEventListener("scroll", onScroll, { passive: true });
      timeline.current = {
        element: parent,
        scroller,
        detach: () => {
          target.removeEventListener("scroll", onScroll);
          cancelAnimationFrame(frame);
        },
      };
      requestAnimationFrame(() => check(true));
    },
    [check],
  );
  useEffect(() => () => timeline.current?.detach(), []);
  // What was drawn changed heights: more may now be near.
  useEffect(() => {
    if (drawCount > 0) check();
  }, [drawCount, check]);
  // A held message got the focus (Tab): drawn at once, and the focus moves into it.
  useLayoutEffect(() => {
    const id = focusAfter.current;
    if (id === undefined || held.current?.has(id)) return;
    focusAfter.current = undefined;
    const drawn = timeline.current?.element.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(id)}"]`);
    (drawn?.matches(FOCUSABLE) ? drawn : drawn?.querySelector<HTMLElement>(FOCUSABLE))?.focus();
  });
  const onFocus = useCallback((id: string) => {
    focusAfter.current = id;
    if (held.current?.delete(id)) redraw();
  }, []);
  return { isHeld: (id: string) => held.current?.has(id) ?? false, anchor: anchor.current, heldShown, watch, onFocus };
}

/**
 * A run of held messages. Memoised on its messages (the same objects): a
 * reply streaming at the end re-renders the timeline every frame, and the
 * runs above it do not change.
 */
const HeldRun = memo(
  function HeldRun({
    run,
    watch,
    onFocus,
  }: {
    run: readonly ChatMessage[];
    watch: (element: HTMLElement | null) => void;
    onFocus: (id: string) => void;
  }) {
    return (
      <div
        className="lm-held-run"
        ref={watch}
        style={{ containIntrinsicSize: `auto ${run.reduce((sum, message) => sum + heldHeight(message), -14)}px` }}
      >
        {run.map((message) => (
          <HeldMessage key={message.id} message={message} onFocus={onFocus} />
        ))}
      </div>
    );
  },
  (before, after) =>
    before.watch === after.watch &&
    before.onFocus === after.onFocus &&
    before.run.length === after.run.length &&
    before.run.every((message, index) => message === after.run[index]),
);

/**
 * The messages of a session that opened long (more than
 * OPEN_DRAWN_MESSAGES): its last ones drawn at once, the held ones after the
 * first paint in runs (`.lm-held-run`, content-visibility: auto: laid out
 * only near the view), each drawn in full when it comes near.
 */
export default function HeldMessages({
  messages,
  draw,
}: {
  messages: readonly ChatMessage[];
  draw: typeof drawnMessage;
}) {
  const { isHeld, anchor, heldShown, watch, onFocus } = useHeldMessages(messages);
  const items: ReactNode[] = [];
  let run: ChatMessage[] = [];
  const endRun = () => {
    if (run.length > 0 && heldShown)
      items.push(<HeldRun key={`run-${run[0].id}`} run={run} watch={watch} onFocus={onFocus} />);
    run = [];
  };
  // Runs are counted back from the session's last message when it opened: older messages put before the others
  // add runs, messages added at the end add none, and the runs already on the page stay as they are.
  const found = messages.findIndex((message) => message.id === anchor);
  const last = found < 0 ? messages.length - 1 : found;
  messages.forEach((message, index) => {
    if (!isHeld(message.id)) {
      endRun();
      items.push(draw(messages, message, index));
      return;
    }
    run.push(message);
    if ((((last - index) % HELD_RUN) + HELD_RUN) % HELD_RUN === 0) endRun();
  });
  endRun();
  return items;
}
