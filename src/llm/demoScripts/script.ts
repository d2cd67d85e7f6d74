/**
 * What a demo script is: a scripted conversation the offline demo model
 * replays, written as Markdown in the real protocol.
 */

export interface DemoScript {
  /** Stable name, e.g. `"primes"`. */
  name: string;
  /** What the script shows, one line. */
  title: string;
  /** A message a person might send that selects this script (the UI may offer it as a suggestion). */
  suggestion: string;
  /** Lower-case words or phrases; each one found as whole words in the person's message scores a point. */
  keywords: readonly string[];
  /**
   * `steps[0]` answers the person's message; `steps[k]` answers the k-th
   * runtime-output message that followed it. A step that is a function gets
   * that runtime output, so it can react to what actually happened.
   */
  steps: readonly DemoStep[];
  /**
   * The reply to a UI-event message: output that the person's action on a
   * UI this script mounted (a click) made the realm print after the
   * interaction ended. Without it the demo gives its generic UI-event reply.
   * It should log nothing, so the person gets the turn back.
   */
  uiEvent?: (feedback: string) => string;
  /**
   * The script calls the tools of the page's built-in demo MCP server: the
   * demo model's `prepare` connects it before the reply streams.
   */
  usesDemoTools?: boolean;
}

export type DemoStep = string | ((feedback: string) => string);

/** Opening and closing lines of a code fence, so the scripts read like the replies they are. */
export const RUN = "```tsx agent.run";
export const END = "```";

/**
 * A follow-up step that only makes its scripted claims when the runtime
 * output looks as the script expects; otherwise it says what came back
 * instead of pretending.
 */
export function expecting(pattern: RegExp, reply: string): DemoStep {
  return (feedback) => (pattern.test(feedback) ? reply : unexpected(feedback));
}

export function unexpected(feedback: string): string {
  const lines = fencedOutput(feedback)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(0, 6);
  const quoted = lines.length > 0 ? lines.map((line) => `> ${line}`).join("\n") : "> (no output)";
  return `The sandbox answered something this demo script did not expect:

${quoted}

I'm the offline demo model and can only replay fixed scripts, so I can't react to that properly. Try again, or add an API key in Settings to talk to a real model.`;
}

/** The text inside the fence of a runtime-output message (the whole message when there is no fence). */
export function fencedOutput(feedback: string): string {
  const match = /^(`{3,})text(?: untrusted content)?\n([\s\S]*?)\n\1$/m.exec(feedback);
  return match ? match[2] : feedback;
}
