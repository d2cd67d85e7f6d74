/**
 * Code in the habits models bring from React and browser snippets (issue 16)
 * runs in the real sandbox, or fails once with an error that tells the model
 * what to write instead — through the mock LLM, the real realm and renderer.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, FENCE, send, statusText } from "./fixture";
import type { MockLlm } from "./mockLlm";

const it = appTest({ configure: true });
let mock: MockLlm;
let page: Page;
it.beforeEach(({ page: opened, mock: started }) => {
  page = opened;
  mock = started;
});

function userContent(index: number): string {
  const messages = mock.requests[index].body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, "g"))?.length ?? 0;

describe("model habits", () => {
  it("the counter with imports and a default export renders, is titled by its name, and clicks", async () => {
    mock.enqueue({
      chunks: [
        "Here is a counter.\n\n",
        `${FENCE}tsx agent.run\n`,
        'import React, { useState } from "react";\n',
        'import { Button } from "@/components/ui/button";\n',
        'import { Card, CardContent } from "@/components/ui/card";\n\n',
        "export default function Counter() {\n  const [count, setCount] = useState(0);\n",
        "  return (\n    <Card>\n      <CardContent>\n",
        "        <Button onClick={() => setCount(count + 1)}>Clicked {count} times</Button>\n",
        "      </CardContent>\n    </Card>\n  );\n}\n",
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Noted."] });
    await send(page, "Make me a counter");
    const panel = page.getByLabel("Mounted UI");
    await panel.getByRole("button", { name: "Clicked 0 times" }).waitFor({ timeout: 30_000 });
    expect(await page.getByLabel("Counter", { exact: true }).count()).toBe(1);
    await panel.getByRole("button", { name: "Clicked 0 times" }).click();
    await panel.getByRole("button", { name: "Clicked 1 times" }).waitFor({ timeout: 10_000 });
    // Mounting it costs no turn of its own: the model hears of it, and that nothing failed, with the next message.
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(mock.requests.filter((request) => request.method === "POST")).toHaveLength(1);
    await send(page, "Thanks");
    await mock.waitForRequests(2, 15_000);
    const second = mock.requests.filter((request) => request.method === "POST")[1].body.messages as { role: string }[];
    const feedback = JSON.stringify(second.filter((message) => message.role !== "system"));
    expect(feedback).toMatch(/export default Counter/);
    expect(feedback).not.toMatch(/Error/);
  });

  it("ReactDOM.createRoot(document.getElementById(...)).render(<App />) shows the app", async () => {
    mock.enqueue({
      chunks: [
        `${FENCE}tsx agent.run\n`,
        'import ReactDOM from "react-dom/client";\n',
        "function App() {\n  return <p>Hello from the root</p>;\n}\n",
        'ReactDOM.createRoot(document.getElementById("root")).render(<App />);\n',
        `${FENCE}\n`,
      ],
    });
    await send(page, "Render an app");
    const panel = page.getByLabel("Mounted UI");
    await panel.getByText("Hello from the root").waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    // Nothing to report: no turn after the reply.
    expect(mock.requests).toHaveLength(1);
  });

  it.each([
    [
      "an unknown import",
      'import axios from "axios";\nconsole.log("never");',
      /Cannot import "axios"/,
      /cannot load or install packages/,
    ],
    [
      "document",
      'document.getElementById("out").textContent = "hi";',
      /no page DOM in the realm/,
      /show UI with mount\(\{ ui/,
    ],
    ["alert", 'alert("Saved!");', /alert\(\) is not available/, /console\.log[^\n]*mount a form/],
    [
      "localStorage",
      'localStorage.setItem("count", "1");',
      /localStorage\.setItem is not available/,
      /await storage\.set\(key, value\)[^\n]*useStored\(key, initial\)/,
    ],
    [
      "indexedDB",
      'indexedDB.open("notes");',
      /indexedDB is not available in the realm/,
      /await storage\.get\(key\)[^\n]*useStored/,
    ],
  ])("%s produces exactly one clear error naming the alternative", async (_, code, error, alternative) => {
    mock.enqueue({ chunks: [`${FENCE}tsx agent.run\n${code}\n${FENCE}\n`] });
    mock.enqueue({ chunks: ["I will do it differently."] });
    await send(page, "Try it");
    await mock.waitForRequests(2, 15_000);
    const feedback = userContent(1);
    expect(count(feedback, error)).toBe(1);
    expect(feedback).toMatch(alternative);
    await page.getByText("I will do it differently.").waitFor({ timeout: 10_000 });
  });
});
