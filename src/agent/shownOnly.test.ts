import { describe, expect, it } from "vitest";
import { looksRunnable, shownOnlyFences, shownOnlyNote } from "./shownOnly";

const FENCE = "```";

describe("plain jsx/tsx fences that look like code meant to run", () => {
  it("are jsx or tsx fences with JSX or a call that only makes sense when run", () => {
    expect(looksRunnable("tsx", "function App() {\n  return <p>Hi</p>;\n}")).toBe(true);
    expect(looksRunnable("jsx", 'mount({ ui: () => "x" })')).toBe(true);
    expect(looksRunnable("TSX", "export default App")).toBe(true);
    // A type, a signature: shown as it is meant to be.
    expect(looksRunnable("tsx", "type Props = { name: string };")).toBe(false);
    expect(looksRunnable("ts", "console.log(1)")).toBe(false);
    expect(looksRunnable("tsx", "")).toBe(false);
    expect(looksRunnable(undefined, "<p/>")).toBe(false);
  });

  it("are found in a reply's text with the reply line of their opening fence", () => {
    const text = [
      "Here is a component:",
      "",
      `${FENCE}tsx`,
      "export default function App() { return <p>hi</p> }",
      FENCE,
      "",
      `${FENCE}tsx`,
      "type A = string;",
      FENCE,
      `${FENCE}sh`,
      "echo <x>",
      FENCE,
    ].join("\n");
    const found = shownOnlyFences(text, 5);
    expect(found).toEqual([{ lang: "tsx", line: 7 }]);
    expect(shownOnlyNote(found[0])).toBe(
      "Note: the ```tsx fence at line 7 has no agent.run, so it was only shown, not run. To run code, open the fence with ```tsx agent.run.",
    );
  });

  it("ignore an unclosed fence (the reply may still be streaming)", () => {
    expect(shownOnlyFences(`${FENCE}jsx\n<p>hi</p>\n`, 1)).toEqual([]);
  });
});
