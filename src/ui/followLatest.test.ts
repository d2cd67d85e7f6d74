import { describe, expect, it } from "vitest";
import { FollowLatest, NEAR_BOTTOM_PX } from "./followLatest";

/** A scroller and its timeline as the follow sees them: sizes, a scroll offset, events, a resize observer. */
function setup({ height = 1000, view = 400 } = {}) {
  const page = new EventTarget();
  const scroller = Object.assign(new EventTarget(), {
    scrollTop: 0,
    scrollHeight: height,
    clientHeight: view,
    ownerDocument: page,
    parentElement: null,
    contains: () => true,
    scrollTo({ top }: { top: number }) {
      scroller.scrollTop = Math.min(top, scroller.scrollHeight - scroller.clientHeight);
    },
  });
  const content = new EventTarget();
  let resized: (() => void) | undefined;
  let changes = 0;
  const follow = new FollowLatest(
    () => (changes += 1),
    (callback) => {
      resized = callback;
      return {
        observe() {},
        unobserve() {},
        disconnect: () => (resized = undefined),
      } as unknown as ResizeObserver;
    },
  );
  follow.setContent(content as unknown as HTMLElement);
  follow.setScroller(scroller as unknown as HTMLElement);
  const below = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
  return {
    follow,
    scroller,
    below,
    changes: () => changes,
    watched: () => resized !== undefined,
    /** The timeline grew (or shrank) by `by` px; the browser clamps the offset as it does, then the observer runs. */
    grow(by: number) {
      scroller.scrollHeight += by;
      const max = scroller.scrollHeight - scroller.clientHeight;
      if (scroller.scrollTop > max) {
        scroller.scrollTop = max;
        scroller.dispatchEvent(new Event("scroll"));
      }
      resized!();
    },
    /** A scroll to `top`, by the person (`as`: the event that came first) or by the page. */
    scrollTo(top: number, as?: "wheel" | "keydown" | "pointerdown") {
      if (as === "wheel")
        scroller.dispatchEvent(Object.assign(new Event("wheel"), { deltaY: top < scroller.scrollTop ? -100 : 100 }));
      else if (as === "keydown") page.dispatchEvent(Object.assign(new Event("keydown"), { key: "PageUp" }));
      else if (as === "pointerdown") scroller.dispatchEvent(new Event("pointerdown"));
      scroller.scrollTop = top;
      scroller.dispatchEvent(new Event("scroll"));
    },
  };
}

describe("FollowLatest", () => {
  it("keeps the bottom in view as the timeline grows, in the observer's own callback (no frame later)", () => {
    const view = setup();
    view.grow(0);
    expect(view.below()).toBe(0);
    for (let step = 0; step < 5; step += 1) {
      view.grow(120);
      expect(view.below()).toBe(0);
    }
    expect(view.follow.atLatest).toBe(true);
    // Nothing re-renders while it only follows.
    expect(view.changes()).toBe(0);
  });

  it("stops following when the person scrolls up (wheel, key, scrollbar), and says so once the bottom is out of reach", () => {
    for (const as of ["wheel", "keydown", "pointerdown"] as const) {
      const view = setup();
      view.grow(0);
      view.scrollTo(view.scroller.scrollTop - 30, as);
      view.grow(200);
      // Not pulled back down; 30 px up is still near the bottom until the timeline grows past it.
      expect(view.below()).toBe(230);
      expect(view.follow.atLatest).toBe(false);
      expect(view.changes()).toBe(1);
    }
  });

  it("stops at the wheel itself, before its scroll, so a growth in between does not pull the view down", () => {
    const view = setup();
    view.grow(0);
    view.scroller.dispatchEvent(Object.assign(new Event("wheel"), { deltaY: -100 }));
    view.grow(200);
    expect(view.below()).toBe(200);
  });

  it("keeps following through a scroll nobody made that ends at the bottom (the timeline shrank)", () => {
    const view = setup();
    view.grow(300);
    view.grow(-300);
    expect(view.below()).toBe(0);
    view.grow(100);
    expect(view.below()).toBe(0);
    expect(view.follow.atLatest).toBe(true);
  });

  it("stops when something the person did not do scrolls away from the bottom (a focus brought into view)", () => {
    const view = setup();
    view.grow(0);
    view.scrollTo(100);
    view.grow(50);
    expect(view.scroller.scrollTop).toBe(100);
    expect(view.follow.atLatest).toBe(false);
  });

  it("follows again when the person scrolls back down near the bottom, or jumps", () => {
    const view = setup();
    view.grow(0);
    view.scrollTo(0, "wheel");
    expect(view.follow.atLatest).toBe(false);
    view.scrollTo(view.scroller.scrollHeight - view.scroller.clientHeight - NEAR_BOTTOM_PX + 10, "wheel");
    expect(view.follow.atLatest).toBe(true);
    view.grow(300);
    expect(view.below()).toBe(0);

    view.scrollTo(0, "wheel");
    view.grow(300);
    expect(view.follow.atLatest).toBe(false);
    view.follow.jump(true);
    expect(view.follow.atLatest).toBe(true);
    expect(view.below()).toBe(0);
    view.grow(300);
    expect(view.below()).toBe(0);
    // The person's earlier scroll no longer counts: a shrink after the jump is followed as any.
    view.grow(-200);
    view.grow(100);
    expect(view.below()).toBe(0);
  });

  it("watches nothing without a timeline (an empty session's welcome is not followed)", () => {
    const view = setup();
    expect(view.watched()).toBe(true);
    view.follow.setContent(null);
    expect(view.watched()).toBe(false);
  });
});
