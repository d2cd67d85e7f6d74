/**
 * The timeline follows new content the way chat apps do: while the reader is
 * at the bottom, anything that makes the timeline taller — streamed prose, a
 * code block, a panel drawing itself, a narrower window — keeps the bottom in
 * view. `useFollowLatest.ts` is the React side; this is the DOM side, kept
 * apart so its rules can be tested without a browser.
 *
 * The follow scrolls in the ResizeObserver callback that reports the growth:
 * after the layout that grew the timeline and before that frame is painted,
 * so the bottom never shows a frame late, and a growth costs no frame of its
 * own (no chain of animation frames that scroll, check and reset: a fast
 * stream grows the timeline many times a second).
 *
 * Only the person stops it. A scroll up after their wheel, touch, key or
 * press on the scroller (its scrollbar) stops following at once, in the
 * scroll event (a wheel upwards already in its own event), so the layout
 * that comes next (held messages sized as they come near, panels drawing)
 * cannot pull the view back down; so does a scroll while they select text in
 * the timeline. A scroll up nobody made that still ends at the very bottom
 * (the browser moving the scroller up when the timeline shrinks: restored
 * panels replaced by Revive, a block collapsing) keeps following; one that
 * leaves the bottom (a focus or find-in-page bringing something into view)
 * stops it. Scrolling back down to near the bottom follows again, as does
 * `jump`.
 *
 * Listeners hear only a change of `atLatest` (following, or within
 * NEAR_BOTTOM_PX of the bottom: no "Jump to latest"), never every scroll or
 * growth: the view around the timeline re-renders only when the button comes
 * or goes.
 */

/** How near the bottom counts as "at the latest" (no Jump to latest), and where scrolling down follows again. */
export const NEAR_BOTTOM_PX = 70;
/** A scroll that ends this near the bottom is at the bottom (fractional scroll offsets). */
const AT_BOTTOM_PX = 2;

/** What the person does on the timeline that may scroll it (keys are heard on the whole page). */
const INTENT_EVENTS = ["wheel", "touchstart", "touchmove", "pointerdown"] as const;

function isIntent(event: Event, scroller: HTMLElement): boolean {
  if (event.type === "keydown") {
    const { key, ctrlKey, metaKey, target } = event as KeyboardEvent;
    if ((ctrlKey || metaKey) && key.toLowerCase() === "f") return true;
    // Typing in a field moves its caret, not the timeline; any other key may (Tab brings the focus into view).
    const field = target as HTMLElement | null;
    const typing = !!field && (field.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(field.tagName ?? ""));
    return !typing || key === "Tab";
  }
  // A press on the scroller itself (its scrollbar, its margins), not on a button inside it.
  if (event.type === "pointerdown") return event.target === scroller;
  return true;
}

/** The element a wheel over `target` scrolls first: the nearest ancestor that can scroll vertically. */
function wheelScroller(target: EventTarget | null, scroller: HTMLElement): Element | null {
  for (let node = target as Element | null; node; node = node.parentElement) {
    if (node === scroller) return node;
    const { overflowY } = getComputedStyle(node);
    if ((overflowY === "auto" || overflowY === "scroll") && node.scrollHeight > node.clientHeight) return node;
  }
  return null;
}

export class FollowLatest {
  private scroller: HTMLElement | null = null;
  private content: HTMLElement | null = null;
  private observer: ResizeObserver | undefined;
  private detach: (() => void) | undefined;
  private following = true;
  /** The person did something that scrolls since the timeline last followed. */
  private intent = false;
  /** A pointer is down inside the scroller (a text selection may be under way). */
  private pressed = false;
  private near = true;
  private latest = true;
  private lastTop = 0;

  constructor(
    /** Told when `atLatest` changes. */
    private readonly changed: () => void,
    private readonly observe: (callback: () => void) => ResizeObserver = (callback) => new ResizeObserver(callback),
  ) {}

  /** Following, or near enough the bottom that there is nothing to jump to. */
  get atLatest(): boolean {
    return this.latest;
  }

  /** The scrolling element (`.lm-main`); null detaches. */
  setScroller(element: HTMLElement | null): void {
    this.detach?.();
    this.detach = undefined;
    this.scroller = element;
    this.watch();
    if (!element) return;
    this.lastTop = element.scrollTop;
    const note = (event: Event) => {
      if (isIntent(event, element)) this.intent = true;
      if (event.type === "pointerdown") this.pressed = true;
      // Upwards: stop before the scroll comes (a growth between the wheel and its scroll must not pull back down).
      if (
        event.type === "wheel" &&
        (event as WheelEvent).deltaY < 0 &&
        wheelScroller(event.target, element) === element
      )
        this.stop();
    };
    const released = () => {
      this.pressed = false;
    };
    const scrolled = () => this.scrolled();
    element.addEventListener("scroll", scrolled, { passive: true });
    for (const type of INTENT_EVENTS) element.addEventListener(type, note, { passive: true, capture: true });
    // Keys scroll the timeline wherever the focus is (the composer, the page).
    const page = element.ownerDocument;
    page.addEventListener("keydown", note, { capture: true });
    page.addEventListener("pointerup", released, { capture: true });
    page.addEventListener("pointercancel", released, { capture: true });
    this.detach = () => {
      element.removeEventListener("scroll", scrolled);
      for (const type of INTENT_EVENTS) element.removeEventListener(type, note, { capture: true });
      page.removeEventListener("keydown", note, { capture: true });
      page.removeEventListener("pointerup", released, { capture: true });
      page.removeEventListener("pointercancel", released, { capture: true });
    };
  }

  /** The element that grows (the timeline); null: nothing is followed (an empty session's welcome). */
  setContent(element: HTMLElement | null): void {
    this.content = element;
    this.watch();
  }

  /** Scroll to the bottom and follow again (`smooth`: glide there). */
  jump(smooth = false): void {
    this.following = true;
    this.intent = false;
    this.update();
    const scroller = this.scroller;
    if (!scroller) return;
    if (smooth) scroller.scrollTo({ top: scroller.scrollHeight, behavior: "smooth" });
    else this.toBottom();
  }

  /** Both elements watched for size: the timeline growing, the scroller getting shorter (a window, the footer). */
  private watch(): void {
    this.observer?.disconnect();
    this.observer = undefined;
    if (!this.scroller || !this.content) return;
    this.observer = this.observe(() => this.resized());
    this.observer.observe(this.content);
    this.observer.observe(this.scroller);
  }

  private resized(): void {
    if (this.following && !this.selecting()) this.toBottom();
    else this.measure();
  }

  private toBottom(): void {
    const scroller = this.scroller;
    if (!scroller) return;
    const bottom = scroller.scrollHeight - scroller.clientHeight;
    if (scroller.scrollTop < bottom - 1) scroller.scrollTop = bottom;
    // The scroll event of this move is neither up nor down.
    this.lastTop = scroller.scrollTop;
    this.intent = false;
    this.near = true;
    this.update();
  }

  private scrolled(): void {
    const scroller = this.scroller;
    if (!scroller) return;
    const top = scroller.scrollTop;
    const below = scroller.scrollHeight - top - scroller.clientHeight;
    const up = top < this.lastTop - 0.5;
    const down = top > this.lastTop + 0.5;
    this.lastTop = top;
    if (up && (this.intent || below > AT_BOTTOM_PX || this.selecting())) this.following = false;
    else if (down && below <= NEAR_BOTTOM_PX && !this.selecting()) this.following = true;
    if (this.following && below <= AT_BOTTOM_PX) this.intent = false;
    this.near = below <= NEAR_BOTTOM_PX;
    this.update();
  }

  private measure(): void {
    const scroller = this.scroller;
    if (!scroller) return;
    this.near = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= NEAR_BOTTOM_PX;
    this.update();
  }

  private stop(): void {
    this.following = false;
    this.update();
  }

  private selecting(): boolean {
    if (!this.pressed || !this.scroller || typeof getSelection !== "function") return false;
    const selection = getSelection();
    return !!selection && !selection.isCollapsed && this.scroller.contains(selection.anchorNode);
  }

  private update(): void {
    const latest = this.following || this.near;
    if (latest === this.latest) return;
    this.latest = latest;
    this.changed();
  }
}
