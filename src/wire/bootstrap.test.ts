/**
 * public/sandbox.html cannot import src/wire (it is plain HTML, pinned by its
 * CSP hash), so it spells the bootstrap tags by hand. This test reads it and
 * holds it to the bootstrap tables in types.ts: the same tags, the same
 * fields, the same WIRE_VERSION, and a CSP hash that matches its script.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SANDBOX_HELLO, SANDBOX_START, WIRE_VERSION } from "./constants";
import { realmConnectSchema, sandboxCommandSchema, sandboxMessageSchema } from "./types";

const html = readFileSync(new URL("../../public/sandbox.html", import.meta.url), "utf8");
const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";

/** The object literals the script posts: `postMessage({ type: "tag", a: …, b: … }` → tag → [a, b]. */
function postedMessages(source: string): Map<string, string[]> {
  const posted = new Map<string, string[]>();
  for (const match of source.matchAll(/postMessage\(\{ type: "([^"]+)"((?:, \w+: [^,}]+(?:\([^)]*\))?[^,}]*)*) \}/g)) {
    const keys = [...match[2].matchAll(/, (\w+):/g)].map((each) => each[1]);
    posted.set(match[1], keys);
  }
  return posted;
}

const fieldsOf = (shape: object) => Object.keys(shape).sort();

describe("public/sandbox.html and the bootstrap tables", () => {
  it("uses exactly the bootstrap tags, and no other livemark- tag", () => {
    const tags = new Set([...sandboxCommandSchema.tags, ...sandboxMessageSchema.tags, ...realmConnectSchema.tags]);
    const spelled = new Set(
      [...script.matchAll(/"(livemark-[a-z-]+)"/g)].map((each) => each[1]).filter((tag) => tag !== "livemark-realm"),
    );
    expect([...spelled].sort()).toEqual([...tags].sort());
  });

  it("sends each message it posts with exactly its table's fields", () => {
    const posted = postedMessages(script);
    const sent = { ...sandboxMessageSchema.entries, ...realmConnectSchema.entries };
    expect([...posted.keys()].sort()).toEqual(Object.keys(sent).sort());
    for (const [tag, keys] of posted) expect(keys.sort(), tag).toEqual(fieldsOf(sent[tag as keyof typeof sent]));
  });

  it("reads only the fields of the commands it receives", () => {
    for (const tag of sandboxCommandSchema.tags) expect(script).toMatch(new RegExp(`data\\.type [!=]== "${tag}"`));
    const read = new Set([...script.matchAll(/\bdata\.(\w+)/g)].map((each) => each[1]));
    const declared = new Set([
      "type",
      ...Object.values(sandboxCommandSchema.entries).flatMap((shape) => Object.keys(shape)),
    ]);
    for (const field of read) expect(declared.has(field), `data.${field}`).toBe(true);
  });

  it("speaks this WIRE_VERSION", () => {
    expect(script).toContain(`var VERSION = ${WIRE_VERSION};`);
  });

  it("is pinned by a CSP hash of its own script (edit the script: update the hash)", () => {
    const hash = createHash("sha256").update(script).digest("base64");
    expect(html).toContain(`'sha256-${hash}'`);
  });
});

describe("public/realm-start.js (index.html's head script) and the bootstrap tables", () => {
  const headScript = readFileSync(new URL("../../public/realm-start.js", import.meta.url), "utf8");

  it("speaks this WIRE_VERSION, hears only the hello and posts only the start, with its table's fields", () => {
    expect(headScript).toContain(`var VERSION = ${WIRE_VERSION};`);
    expect(headScript).toContain(`data.type !== "${SANDBOX_HELLO}"`);
    const posted = postedMessages(headScript);
    expect([...posted.keys()]).toEqual([SANDBOX_START]);
    expect(posted.get(SANDBOX_START)!.sort()).toEqual(fieldsOf(sandboxCommandSchema.entries[SANDBOX_START]));
    const spelled = new Set([...headScript.matchAll(/"(livemark-[a-z-]+)"/g)].map((each) => each[1]));
    expect([...spelled].sort()).toEqual([SANDBOX_HELLO, SANDBOX_START].sort());
  });
});
