import { describe, expect, it } from "vitest";
import { DEMO_SCRIPTS } from "./demoScripts";
import { formatFeedbackMessage, formatUiEventMessage } from "./feedbackMessage";
import {
  DEMO_CLOSING_REPLY,
  DEMO_UI_EVENT_REPLY,
  pickScript,
  selectDemoReply,
  type DemoMessage,
} from "./selectDemoReply";

const person = (text: string): DemoMessage => ({ role: "user", content: text });
const assistant = (text: string): DemoMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const feedback = (...lines: string[]): DemoMessage => person(formatFeedbackMessage(lines));

describe("pickScript", () => {
  it.each([
    ["Hello! What can you do?", "intro"],
    ["hi", "intro"],
    ["something nobody scripted", "intro"],
    ["", "intro"],
    ["Compute some primes", "primes"],
    ["Can you calculate something and show me the feedback loop?", "primes"],
    ["Show me an error", "fix-error"],
    ["My code throws a TypeError, fix it", "fix-error"],
    ["Run an infinite loop", "infinite-loop"],
    ["what happens with while(true)?", "infinite-loop"],
    ["Stream some Markdown", "markdown"],
    ["Show me a table", "markdown"],
    ["Order a pizza with a form", "form"],
    ["Can you ask me with a form?", "form"],
    ["Show live progress", "progress"],
    ["Stream data into a chart", "chart"],
    ["plot the weather", "chart"],
    ["Give me a button to click", "button"],
    ["roll a die", "button"],
    ["Build me a dashboard", "dashboard"],
    ["Make a to-do list that remembers", "todo"],
    ["keep my todos across a reload", "todo"],
  ])("%j → %s", (message, name) => {
    expect(pickScript(message).name).toBe(name);
  });

  it("matches whole words only", () => {
    // "this" contains "hi", "logic" starts with "log": neither may match.
    expect(pickScript("this logic").name).toBe("intro");
    expect(pickScript("PRIMES!").name).toBe("primes");
  });
});

describe("selectDemoReply", () => {
  it("answers the person's message with the script's first step", () => {
    const reply = selectDemoReply([{ role: "system", content: "system prompt" }, person("Compute some primes")]);
    expect(reply).toMatchObject({ kind: "script", step: 0 });
    expect(reply.script.name).toBe("primes");
    expect(reply.text).toBe(reply.script.steps[0]);
  });

  it("after runtime output, plays the follow-up step, which reacts to that output", () => {
    const messages = [
      person("Compute some primes"),
      assistant("…"),
      feedback("25 primes below 100", "widest gap: 8 between 89 and 97"),
    ];
    const reply = selectDemoReply(messages);
    expect(reply).toMatchObject({ kind: "script", step: 1 });
    expect(reply.text).toContain("**25 primes**");
  });

  it("a follow-up step does not pretend when the output is not what it expected", () => {
    const reply = selectDemoReply([
      person("Compute some primes"),
      assistant("…"),
      feedback("ReferenceError: sleep is not defined"),
    ]);
    expect(reply.step).toBe(1);
    expect(reply.text).not.toContain("25 primes");
    expect(reply.text).toContain("ReferenceError: sleep is not defined");
  });

  it("counts feedback only since the person's latest message", () => {
    const messages = [
      person("Show me an error"),
      assistant("…"),
      feedback("TypeError: Cannot read properties of null (reading 'name')"),
      assistant("…"),
      feedback("customers: [ 'ADA', '(no customer)', 'GRACE' ]"),
      assistant("Fixed"),
      person("Run an infinite loop"),
    ];
    expect(selectDemoReply(messages.slice(0, 3))).toMatchObject({ step: 1 });
    expect(selectDemoReply(messages.slice(0, 5))).toMatchObject({ step: 2 });
    const reply = selectDemoReply(messages);
    expect(reply.script.name).toBe("infinite-loop");
    expect(reply.step).toBe(0);
  });

  it("feedback past the script's end gets a closing reply without code, so the loop ends", () => {
    const reply = selectDemoReply([person("Stream some Markdown"), assistant("…"), feedback("unexpected log")]);
    expect(reply).toMatchObject({ kind: "closing", step: -1, text: DEMO_CLOSING_REPLY });
    expect(reply.text).not.toContain("agent.run");
  });

  it("a UI event gets the UI-event reply", () => {
    const reply = selectDemoReply([person("hello"), assistant("…"), person(formatUiEventMessage(["clicked"]))]);
    expect(reply).toMatchObject({ kind: "ui-event", text: DEMO_UI_EVENT_REPLY });
  });

  it("a UI event gets the script's own reply when it has one", () => {
    const reply = selectDemoReply([
      person("Give me a button to click"),
      assistant("…"),
      person(formatUiEventMessage(["rolled 3 | rolls so far: 3"])),
    ]);
    expect(reply).toMatchObject({ kind: "ui-event", step: -1 });
    expect(reply.script.name).toBe("button");
    expect(reply.text).toContain("You rolled a **3**.");
  });

  it("a click on an earlier demo's button is still answered by that demo", () => {
    const messages = [
      person("Give me a button to click"),
      assistant("…"),
      person("Compute some primes"),
      assistant("…"),
    ];
    const reply = selectDemoReply([
      ...messages,
      person(formatUiEventMessage(["[block 1] rolled 5 | rolls so far: 2, 5"])),
    ]);
    expect(reply.script.name).toBe("button");
    expect(reply.text).toContain("You rolled a **5**.");
    expect(selectDemoReply([...messages, person(formatUiEventMessage(["clicked"]))]).text).toBe(DEMO_UI_EVENT_REPLY);
  });

  it("an empty conversation gets the intro", () => {
    expect(selectDemoReply([]).script.name).toBe("intro");
  });

  it("takes custom scripts, and the first one is the default", () => {
    const only = { name: "only", title: "", suggestion: "x", keywords: ["zebra"], steps: ["zebra reply"] };
    expect(selectDemoReply([person("nothing")], [only, ...DEMO_SCRIPTS]).text).toBe("zebra reply");
    expect(() => selectDemoReply([person("x")], [])).toThrow();
  });
});
