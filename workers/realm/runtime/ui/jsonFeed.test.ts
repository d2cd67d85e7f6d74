import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createJsonFeed } from "./jsonFeed";

async function feedAll(text: string, size: number) {
  const seen: unknown[] = [];
  const errors: unknown[] = [];
  const feed = createJsonFeed({ onProgress: () => {}, onError: (error) => errors.push(error) });
  for (let index = 0; index < text.length; index += size) {
    feed.push(text.slice(index, index + size));
    await feed.idle();
    if (feed.hasValue()) seen.push(feed.snapshot());
  }
  feed.close();
  await feed.idle();
  return { seen, errors, final: feed.snapshot() };
}

/** Every number in `value`. */
function numbers(value: unknown, out: number[] = []): number[] {
  if (typeof value === "number") out.push(value);
  else if (Array.isArray(value)) for (const item of value) numbers(item, out);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) numbers(item, out);
  return out;
}

describe("createJsonFeed", () => {
  test("4-character chunks: arrays grow, numbers never show half-typed", async () => {
    const { seen, final } = await feedAll("[1234, 5678, 91011]", 4);
    expect(final).toEqual([1234, 5678, 91011]);
    for (const value of seen) for (const n of numbers(value)) expect([1234, 5678, 91011]).toContain(n);
    const lengths = seen.map((value) => (value as unknown[]).length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(new Set(lengths).size).toBeGreaterThan(2);
  });

  test("snapshots: complete parts keep their identity, the changing spine is new", async () => {
    const feed = createJsonFeed({ onProgress: () => {}, onError: () => {} });
    feed.push('{"rows": [{"a": 1}, {"a": 2}, {"a"');
    await feed.idle();
    const first = feed.snapshot() as { rows: object[] };
    feed.push(": 3}");
    await feed.idle();
    const second = feed.snapshot() as { rows: object[] };
    expect(second).not.toBe(first);
    expect(second.rows).not.toBe(first.rows);
    expect(second.rows[0]).toBe(first.rows[0]);
    expect(second.rows[1]).toBe(first.rows[1]);
    expect(second.rows[2]).toEqual({ a: 3 });
    expect(first.rows[2]).toEqual({}); // an earlier snapshot never changes afterwards
  });

  test("malformed JSON stops with an error and keeps the last value", async () => {
    const { final, errors } = await feedAll('[1, 2, "x" }', 3);
    expect(errors).toHaveLength(1);
    expect(final).toEqual([1, 2, "x"]);
  });

  test("batches deltas: the parser is woken by the scheduler, not per delta", async () => {
    const wakes: (() => void)[] = [];
    let progress = 0;
    const feed = createJsonFeed({
      onProgress: () => progress++,
      onError: () => {},
      scheduleWake: (wake) => wakes.push(wake),
    });
    for (const chunk of ["[1,", " 2,", " 3,", " 4]"]) feed.push(chunk);
    expect(wakes).toHaveLength(1);
    wakes[0]();
    await feed.drained();
    expect(feed.snapshot()).toEqual([1, 2, 3, 4]);
    expect(progress).toBe(1);
  });

  test("text() is every delta pushed, those handed to the parser and those still queued", async () => {
    const wakes: (() => void)[] = [];
    const feed = createJsonFeed({ onProgress: () => {}, onError: () => {}, scheduleWake: (wake) => wakes.push(wake) });
    for (const chunk of ['{"a"', ": [1,", " 2"]) feed.push(chunk);
    wakes[0]();
    await feed.drained();
    for (const chunk of [", 3", "]}"]) feed.push(chunk);
    expect(feed.text()).toBe('{"a": [1, 2, 3]}');
  });

  test("property: any JSON, any chunking → the final value equals JSON.parse, numbers are always complete", async () => {
    await fc.assert(
      fc.asyncProperty(fc.json({ maxDepth: 3 }), fc.integer({ min: 1, max: 9 }), async (text, size) => {
        const expected = JSON.parse(text);
        const complete = new Set(numbers(expected).map((n) => (Object.is(n, -0) ? 0 : n)));
        const { seen, final, errors } = await feedAll(text, size);
        expect(errors).toEqual([]);
        expect(final).toEqual(expected);
        for (const value of seen)
          for (const n of numbers(value)) expect(complete.has(Object.is(n, -0) ? 0 : n)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
