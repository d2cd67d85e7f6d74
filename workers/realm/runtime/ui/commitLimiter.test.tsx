import { createElement, useEffect, useState } from "react";
import { describe, expect, test } from "vitest";
import {
  MOUNT_FRAME_MS,
  MOUNT_OPS,
  MOUNT_PAUSED_ERROR_NAME,
  MOUNT_PAUSED_NOTICE,
  MAX_OPEN_MOUNTS,
  type MountRealmMessage,
} from "../../../../src/wire/mount";
import { createCommitLimiter } from "./commitLimiter";
import { createMountRuntime, type UiError } from "./createMountRuntime";

describe("createCommitLimiter", () => {
  test("an animation at 60 commits a second stays ok", () => {
    const limiter = createCommitLimiter();
    const verdicts = new Set<string>();
    for (let time = 0; time < 10_000; time += 1000 / 60) verdicts.add(limiter.commit(time));
    expect([...verdicts]).toEqual(["ok"]);
  });

  test("a loop is throttled within its first second, then suspended", () => {
    const limiter = createCommitLimiter();
    const seen: string[] = [];
    for (let time = 0; time < 5000; time += 2) {
      const verdict = limiter.commit(time);
      if (seen.at(-1) !== verdict) seen.push(verdict);
    }
    expect(seen).toEqual(["ok", "throttle", "suspend"]);
  });

  test("a burst past the hard limit suspends at once", () => {
    const limiter = createCommitLimiter();
    let verdict = "ok";
    for (let index = 0; index < 700 && verdict !== "suspend"; index += 1) verdict = limiter.commit(index * 0.1);
    expect(verdict).toBe("suspend");
  });
});

describe("the mount runtime's commit limit", () => {
  /**
   * Everything the limit judges runs on a fake clock: every reading moves it
   * 5 ms (about 200 commits a second, over the throttle, however fast this
   * machine is: the loop is paused after a few hundred renders), and a frame
   * runs once MOUNT_FRAME_MS of that clock has passed since the last one.
   * With real timers a loaded machine fits fewer commits into each real
   * frame and the number of frames (MOUNT_OPS sent) grew with the load.
   */
  function harness() {
    const messages: MountRealmMessage[] = [];
    const errors: UiError[] = [];
    const frames: (() => void)[] = [];
    let clock = 0;
    let lastFrame = -Infinity;
    const runtime = createMountRuntime({
      post: (message) => messages.push(message),
      onError: (error) => errors.push(error),
      schedule: (callback) => void frames.push(callback),
      now: () => (clock += 5),
    });
    /** One turn of the event loop (React renders and runs effects in its own tasks), then the frames that are due. */
    const turn = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      if (frames.length > 0 && clock - lastFrame >= MOUNT_FRAME_MS) {
        lastFrame = clock;
        for (const frame of frames.splice(0)) frame();
      }
    };
    return { runtime, messages, errors, turn };
  }

  test("a render loop (an effect that sets state on every render) is paused with a notice and a warning", async () => {
    const { runtime, messages, errors, turn } = harness();
    function Loop() {
      const [n, setN] = useState(0);
      useEffect(() => setN(n + 1));
      return createElement(
        "div",
        null,
        Array.from({ length: 20 }, (_, index) => createElement("span", { key: index }, String((n + index) % 10))),
      );
    }
    runtime.mount({ ui: Loop });
    for (let round = 0; round < 20_000 && !errors.some((error) => error.code === "update-loop"); round += 1)
      await turn();
    const warning = errors.find((error) => error.code === "update-loop");
    expect(warning?.message).toMatch(/re-rendered \d+ times within a second and was paused/);
    expect(messages).toContainEqual({
      type: "mount",
      kind: "error",
      mountId: "m1",
      error: { code: "render", name: MOUNT_PAUSED_ERROR_NAME, message: MOUNT_PAUSED_NOTICE },
    });
    // Paused for good: nothing more leaves the realm for this mount.
    const sent = messages.length;
    for (let round = 0; round < 20; round += 1) await turn();
    expect(messages.length).toBe(sent);
    expect(messages.filter((message) => message.kind === MOUNT_OPS).length).toBeLessThan(60);
    // A few hundred renders of real React work: room for a machine loaded many times over.
  }, 120_000);

  test("mount() beyond the cap throws a clear error and opens nothing", () => {
    const { runtime, messages } = harness();
    for (let index = 0; index < MAX_OPEN_MOUNTS; index += 1) runtime.mount({ ui: () => null });
    expect(() => runtime.mount({ ui: () => null })).toThrow(/mounts are already open, the limit/);
    expect(messages.filter((message) => message.kind === "open")).toHaveLength(MAX_OPEN_MOUNTS);
  });
});
