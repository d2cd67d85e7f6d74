/**
 * The code habits models bring (issue 16) run through the real parser,
 * executor and UI runtime, or fail once with an error that names what to
 * write instead.
 */
import { describe, expect, it, vi } from "vitest";
import { MOUNT_OPEN, type MountRealmMessage } from "../src/wire/mount";
import { createSession } from "./runReply";

const FENCE = "```";
const reply = (code: string) => `Here it is.\n\n${FENCE}tsx agent.run\n${code}\n${FENCE}\n`;
const opened = (messages: MountRealmMessage[]) =>
  messages.filter(
    (message): message is Extract<MountRealmMessage, { type: "mount"; kind: "open" }> => message.kind === MOUNT_OPEN,
  );

const COUNTER = `import React, { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card as Box, CardContent } from "components/ui/card";
import { Star } from "lucide-react";
import type { FC } from "react";

export default function Counter() {
  const [count, setCount] = useState(0);
  return (
    <Box>
      <CardContent>
        <Star />
        <Button onClick={() => setCount(count + 1)}>Clicked {count}</Button>
      </CardContent>
    </Box>
  );
}`;

describe("model habits", () => {
  it("imports of what the realm has bind to its globals; an unmounted default export is mounted, titled, with a note", async () => {
    for (const chunk of [1, 7, 1000]) {
      const session = createSession();
      const result = await session.run(reply(COUNTER), chunk);
      expect(result.errors).toEqual([]);
      const [open] = opened(result.mountMessages);
      expect(open?.title).toBe("Counter");
      expect(session.host.types(open.mountId)).toEqual(["Card", "CardContent", "StarIcon", "Button"]);
      expect(result.logs).toHaveLength(1);
      expect(result.logs[0]).toMatch(/export default Counter.*mounted.*not needed/);

      session.ui.handleUiEvent(session.host.clickEvent(open.mountId));
      await vi.waitFor(() => expect(session.host.html(open.mountId)).toContain("Clicked 1"));
    }
  });

  it("does not mount a default export the block mounted itself", async () => {
    const session = createSession();
    const result = await session.run(
      reply(`export default function App() { return <p>hi</p> }\nmount({ ui: App, title: "Mine" })`),
    );
    expect(result.errors).toEqual([]);
    expect(opened(result.mountMessages).map((message) => message.title)).toEqual(["Mine"]);
    expect(result.logs).toEqual([]);
  });

  it("accepts and ignores export (const, function, lists, types)", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `export const a = 1\nexport function twice(n: number) { return n * 2 }\nexport type T = { a: number }\nexport { a, twice }\nconsole.log(twice(a))`,
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["2"]);
  });

  it("namespace, aliased and zod imports", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `import * as R from "react"\nimport { z as zz } from "zod"\nimport { LineChart } from "recharts"\nimport { createRoot } from "react-dom/client"\nconsole.log(R === React, zz === z, LineChart, typeof createRoot)`,
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["true true LineChart function"]);
  });

  it("imports without semicolons, side-effect imports of known modules, and an anonymous default export", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `import "react"\nimport { useState } from 'react'\nimport { Badge } from "@/components/ui/badge"\nexport default () => <Badge>{typeof useState}</Badge>`,
      ),
      3,
    );
    expect(result.errors).toEqual([]);
    const [open] = opened(result.mountMessages);
    expect(open.title).toBeUndefined();
    expect(session.host.html(open.mountId)).toContain("function");
    expect(result.logs).toHaveLength(1);
  });

  it("a side-effect import of something the realm lacks (a stylesheet) fails once", async () => {
    const session = createSession();
    const result = await session.run(reply(`import "./App.css"\nconsole.log("styled")`));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/Cannot import "\.\/App\.css".*cannot load or install/);
    expect(result.logs).toEqual([]);
  });

  it("ReactDOM.createRoot(...).render mounts, and a second render updates the same mount", async () => {
    const session = createSession();
    const first = await session.run(
      reply(
        `const App = ({ n }) => <p>n is {n}</p>\nconst root = ReactDOM.createRoot(document.getElementById("root"))\nroot.render(<App n={1} />)`,
      ),
    );
    expect(first.errors).toEqual([]);
    const [open] = opened(first.mountMessages);
    expect(open.title).toBe("App");
    expect(session.host.html(open.mountId)).toContain("n is 1");
    const second = await session.run(
      reply(`root.render(<App n={2} />)\nReactDOM.render(<p>legacy</p>, document.getElementById("other"))`),
    );
    expect(second.errors).toEqual([]);
    expect(opened(second.mountMessages)).toHaveLength(1);
    expect(session.host.html(open.mountId)).toContain("n is 2");
  });

  it.each([
    [
      "an unknown import",
      `import axios from "axios"\nconsole.log("after")`,
      /Cannot import "axios".*cannot load or install.*react, react-dom.*zod/,
    ],
    ["require", `const _ = require("lodash")`, /Cannot import "lodash".*cannot load or install/],
    [
      "a kit component the realm lacks",
      `import { Dialog } from "@/components/ui/dialog"`,
      /no `Dialog`.*available: Card/,
    ],
    [
      "document",
      `document.getElementById("out").textContent = "hi"`,
      /no page DOM in the realm; show UI with mount\(\{ ui/,
    ],
    ["window.document", `window.document.title = "x"`, /no page DOM in the realm/],
    [
      "document.createElement",
      `const div = document.createElement("div")`,
      /document\.createElement is not available: there is no page DOM/,
    ],
    ["alert", `alert("Saved!")`, /alert\(\) is not available.*console\.log.*mount a form/],
    ["confirm", `if (confirm("Sure?")) console.log(1)`, /confirm\(\) is not available.*await the answer/],
    [
      "localStorage",
      `localStorage.setItem("k", "v")`,
      /localStorage\.setItem is not available.*await storage\.set\(key, value\).*useStored\(key, initial\)/,
    ],
    [
      "indexedDB",
      `indexedDB.open("db")`,
      /indexedDB\.open is not available.*storage\.get\(key\).*kept for this session/,
    ],
  ])("%s fails once, naming the alternative", async (_, code, expected) => {
    const session = createSession();
    const result = await session.run(reply(code));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(expected);
    expect(result.logs).toEqual([]);
  });

  it("window is the realm's global scope; a model's own `prompt` or `window` is its own", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `console.log(window.Math === Math, typeof window.mount, window.window === window)\nconst prompt = "Write a haiku"\nconsole.log(prompt, typeof prompt)`,
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["true function true", "Write a haiku string"]);
  });

  it("feature detection sees a worker: typeof document, alert, localStorage and require are undefined", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `console.log(typeof document, typeof alert, typeof localStorage, typeof require, typeof window)\nif (typeof document !== "undefined") document.title = "x"`,
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.logs).toEqual(["undefined undefined undefined undefined object"]);
  });
});

describe("a realm global the model declares (issue 9 item 7)", () => {
  it("the model's own `z` wins in its code, the realm's zod stays reachable as `zod`, and the model is told once", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `const point = [1, 2, 3]\nconst [x, y, z] = point\nconsole.log(x + y + z)\nconst shape = zod.object({ n: zod.number() })\nconsole.log(shape.parse({ n: z }).n)`,
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.logs).toHaveLength(3);
    expect(result.logs[0]).toMatch(/^Note: `z` is now your own binding.*available as `zod`/);
    expect(result.logs.slice(1)).toEqual(["6", "3"]);
    const again = await session.run(reply(`let z = 10\nconsole.log(z)`));
    expect(again.errors).toEqual([]);
    expect(again.logs).toEqual(["10"]);
  });

  it("mount, Data and kit names can be the model's own; the realm's stay under realm.<name>", async () => {
    const session = createSession();
    const result = await session.run(
      reply(
        `const mount = { height: 3 }\nclass Data { rows = 1 }\nconsole.log(mount.height, new Data().rows)\nrealm.mount({ ui: () => <p>still mounts</p> })`,
      ),
    );
    expect(result.errors).toEqual([]);
    expect(result.logs.filter((line) => line.startsWith("Note:"))).toHaveLength(2);
    expect(result.logs).toContain("3 1");
    const [open] = opened(result.mountMessages);
    expect(session.host.html(open.mountId)).toContain("still mounts");
  });

  it.each(["const fetch = 1", "let console = {}", "function setTimeout() {}"])(
    "platform globals stay protected: %s",
    async (code) => {
      const session = createSession();
      const result = await session.run(reply(code));
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/platform global|global of the realm/);
    },
  );
});
