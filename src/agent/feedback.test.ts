import { describe, expect, it } from "vitest";
import { FeedbackCollector } from "./feedback";

describe("what the model reads about a sandbox reset", () => {
  it("never calls a crash a loop, and names memory for a realm that stopped responding", () => {
    const crashed = new FeedbackCollector();
    crashed.add({ type: "realm-reset", reason: "crashed" });
    expect(crashed.text()).toContain("crashed (most likely out of memory)");
    expect(crashed.text()).not.toMatch(/loop/);
    const stuck = new FeedbackCollector();
    stuck.add({ type: "realm-reset", reason: "unresponsive" });
    expect(stuck.text()).toContain("stopped responding (code that never yields, or memory running out)");
    expect(stuck.text()).not.toContain("?");
  });

  it("keeps notes that can wait apart: alone they call for no turn", () => {
    const collector = new FeedbackCollector();
    collector.add({ type: "note", message: "Note: shown only", wait: true });
    expect(collector.onlyNotes).toBe(true);
    collector.add({ type: "note", message: "Something that matters" });
    expect(collector.onlyNotes).toBe(false);
    expect(collector.text()).toBe("Note: shown only\nSomething that matters");
  });
});
