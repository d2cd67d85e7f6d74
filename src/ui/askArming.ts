/**
 * When an ask's buttons take a click (issue 32, clickjacking): only once
 * they have stayed where they are for `ASK_ARMING_MS`, as browsers do for
 * their own permission prompts. Generated UI can make an ask appear — or
 * move — under the pointer between the two clicks of a double-click; the
 * second click must not answer it.
 *
 * Pure: the clock is passed in, and the view reports where the buttons are
 * (on every layout change it sees, and again at the click itself, so a move
 * no observer reported still counts).
 *
 * Invariants:
 * 1. A click counts only if the buttons have been at the very place of the
 *    click for `delayMs` (appearing is arriving at a place).
 * 2. Any change of place or size starts the wait again, and so does a
 *    change of what the buttons do (`reset`: the confirm step).
 */
export const ASK_ARMING_MS = 500;

/** Where the buttons are, in viewport pixels. */
export interface AskBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface AskArming {
  /** The buttons are at `box` now; a new place starts the wait again. Returns whether they are armed. */
  place(box: AskBox): boolean;
  /** The buttons now do something else (the confirm step): the wait starts again. */
  reset(): void;
  armed(): boolean;
  /** Milliseconds until armed (0 once armed). */
  remaining(): number;
  /** A click arrived with the buttons at `box`: does it count? */
  click(box: AskBox): boolean;
}

const samePlace = (a: AskBox, b: AskBox) =>
  Math.round(a.left) === Math.round(b.left) &&
  Math.round(a.top) === Math.round(b.top) &&
  Math.round(a.width) === Math.round(b.width) &&
  Math.round(a.height) === Math.round(b.height);

export function createAskArming(now: () => number, delayMs = ASK_ARMING_MS): AskArming {
  let since = now();
  let at: AskBox | undefined;
  const remaining = () => (at === undefined ? delayMs : Math.max(0, delayMs - (now() - since)));
  const place = (box: AskBox) => {
    if (at === undefined || !samePlace(at, box)) {
      at = { ...box };
      since = now();
    }
    return remaining() === 0;
  };
  return {
    place,
    reset() {
      since = now();
    },
    armed: () => remaining() === 0,
    remaining,
    click: place,
  };
}
