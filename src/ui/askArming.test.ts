/**
 * The 500 ms rule of an ask's buttons (issue 32, clickjacking), on an
 * injected clock: a click right after the ask appears, moves or changes
 * what its buttons do is ignored; a click once they sat still counts.
 */
import { describe, expect, it } from "vitest";
import { ASK_ARMING_MS, createAskArming, type AskBox } from "./askArming";

const box: AskBox = { left: 20, top: 600, width: 300, height: 32 };

function clock() {
  let time = 1_000;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

describe("createAskArming", () => {
  it("ignores the second click of a double-click that made the ask appear under the pointer", () => {
    const { now, advance } = clock();
    const arming = createAskArming(now);
    arming.place(box);
    advance(120);
    expect(arming.click(box)).toBe(false);
    expect(arming.armed()).toBe(false);
    expect(arming.remaining()).toBe(ASK_ARMING_MS - 120);
  });

  it("takes a click once the buttons stayed put for 500 ms", () => {
    const { now, advance } = clock();
    const arming = createAskArming(now);
    arming.place(box);
    advance(ASK_ARMING_MS - 1);
    expect(arming.click(box)).toBe(false);
    advance(1);
    expect(arming.armed()).toBe(true);
    expect(arming.click(box)).toBe(true);
  });

  it("starts again when the buttons move, even if no observer reported it before the click", () => {
    const { now, advance } = clock();
    const arming = createAskArming(now);
    arming.place(box);
    advance(2_000);
    expect(arming.armed()).toBe(true);
    // Something above it grew: the buttons are now where the pointer already was.
    const moved = { ...box, top: box.top - 180 };
    expect(arming.click(moved)).toBe(false);
    advance(300);
    expect(arming.click(moved)).toBe(false);
    advance(200);
    expect(arming.click(moved)).toBe(true);
  });

  it("counts a change of size as a move; sub-pixel jitter is not", () => {
    const { now, advance } = clock();
    const arming = createAskArming(now);
    arming.place(box);
    advance(ASK_ARMING_MS);
    expect(arming.place({ ...box, top: box.top + 0.2 })).toBe(true);
    expect(arming.place({ ...box, height: box.height + 40 })).toBe(false);
  });

  it("is never armed before it has a place", () => {
    const { now, advance } = clock();
    const arming = createAskArming(now);
    advance(5_000);
    expect(arming.armed()).toBe(false);
    expect(arming.place(box)).toBe(false);
  });

  it("waits again when the buttons change what they do (the confirm step of Always allow)", () => {
    const { now, advance } = clock();
    const arming = createAskArming(now);
    arming.place(box);
    advance(ASK_ARMING_MS);
    expect(arming.click(box)).toBe(true);
    arming.reset();
    advance(100);
    expect(arming.click(box)).toBe(false);
    advance(ASK_ARMING_MS - 100);
    expect(arming.click(box)).toBe(true);
  });
});
