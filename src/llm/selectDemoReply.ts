/**
 * Picks the demo model's next reply from the conversation alone (no state):
 *
 * - the person's latest message (a user message without a runtime marker)
 *   chooses the script: the script whose keywords it matches best, else the
 *   first script (the intro);
 * - the number of runtime-output messages since that message is the step:
 *   0 → the script's first reply, k → the reply to the k-th feedback;
 * - feedback past the script's last step gets a closing reply without code,
 *   so a demo conversation always ends;
 * - a UI-event message (output of the person's action on a mounted UI) gets
 *   the `uiEvent` reply of the script whose UI it came from (the button script
 *   answers each click, even after the person moved on to another demo), else
 *   a short reply that says the demo can't follow it.
 */
import { DEMO_SCRIPTS, type DemoScript } from "./demoScripts";
import { unexpected } from "./demoScripts/script";
import { classifyUserMessage } from "./feedbackMessage";

/** The parts of a chat message this needs; fits AI SDK prompt messages and plain `{ role, content }`. */
export interface DemoMessage {
  role: string;
  content: string | ReadonlyArray<{ type: string; text?: string }>;
}

export interface DemoReply {
  script: DemoScript;
  /** Index into `script.steps`; `-1` for the closing and UI-event replies. */
  step: number;
  kind: "script" | "closing" | "ui-event";
  text: string;
}

export const DEMO_CLOSING_REPLY =
  "That's the end of this demo script. Nothing was logged, so it's your turn: ask for another demo, or add an API key in Settings to talk to a real model.";

export const DEMO_UI_EVENT_REPLY =
  "I saw that you used the UI, but I'm the offline demo model and only replay fixed scripts, so I can't react to it. Add an API key in Settings to talk to a real model.";

export function selectDemoReply(
  messages: readonly DemoMessage[],
  scripts: readonly DemoScript[] = DEMO_SCRIPTS,
): DemoReply {
  if (scripts.length === 0) throw new Error("selectDemoReply: no scripts");
  const users = messages.filter((message) => message.role === "user").map((message) => textOf(message));
  let personIndex = -1;
  for (let index = users.length - 1; index >= 0; index--) {
    if (classifyUserMessage(users[index]) === "person") {
      personIndex = index;
      break;
    }
  }
  const script = pickScript(personIndex >= 0 ? users[personIndex] : "", scripts);
  const last = users.at(-1) ?? "";

  if (users.length > 0 && classifyUserMessage(last) === "ui-event") {
    // The current script first; then any other script that recognises the output as its own.
    for (const candidate of [script, ...scripts.filter((other) => other !== script)]) {
      const text = candidate.uiEvent?.(last);
      if (text !== undefined && (candidate === script || text !== unexpected(last)))
        return { script: candidate, step: -1, kind: "ui-event", text };
    }
    return { script, step: -1, kind: "ui-event", text: DEMO_UI_EVENT_REPLY };
  }
  const feedbackCount = users
    .slice(personIndex + 1)
    .filter((text) => classifyUserMessage(text) === "runtime-output").length;
  const step = script.steps[feedbackCount];
  if (step === undefined) return { script, step: -1, kind: "closing", text: DEMO_CLOSING_REPLY };
  return { script, step: feedbackCount, kind: "script", text: typeof step === "string" ? step : step(last) };
}

/** The script whose keywords best match `text`; ties go to the earlier script; no match → the first. */
export function pickScript(text: string, scripts: readonly DemoScript[] = DEMO_SCRIPTS): DemoScript {
  const words = ` ${text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(" ")} `;
  let best = scripts[0];
  let bestScore = 0;
  for (const script of scripts) {
    let score = 0;
    for (const keyword of script.keywords) {
      // A phrase counts once per word, so "infinite loop" beats "loop".
      if (words.includes(` ${keyword} `)) score += keyword.split(" ").length;
    }
    if (score > bestScore) {
      best = script;
      bestScore = score;
    }
  }
  return best;
}

function textOf(message: DemoMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}
