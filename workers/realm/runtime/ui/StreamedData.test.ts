import { describe, expect, test } from "vitest";
import { createStreamedDataClass, streamIdle, streamStateOf } from "./StreamedData";
import { subscribe, type Subscriber } from "./tracking";

function setup() {
  const duplicates: string[] = [];
  const { StreamedData, registry } = createStreamedDataClass({ onDuplicate: (id) => duplicates.push(id) });
  return { StreamedData, registry, duplicates };
}

async function stream(sink: { push(delta: string): void }, target: object, text: string, size = 4): Promise<unknown[]> {
  const values: unknown[] = [];
  for (let index = 0; index < text.length; index += size) {
    sink.push(text.slice(index, index + size));
    await streamIdle(target);
    values.push(streamStateOf(target)!.read());
  }
  return values;
}

describe("StreamedData", () => {
  test("the value grows as the fence streams; done resolves at the end", async () => {
    const { StreamedData, registry } = setup();
    const sales = new StreamedData("sales");
    expect(sales.value).toBeUndefined();
    const done = sales.done;
    const sink = registry.open("sales")!;
    expect(sales.streaming).toBe(true);
    const values = await stream(sink, sales, '[{"m": "Jan", "v": 1234}, {"m": "Feb", "v": 5678}]');
    expect(values.some((value) => Array.isArray(value) && value.length === 1)).toBe(true);
    for (const value of values)
      for (const row of (value as { v?: number }[]) ?? [])
        if (row.v !== undefined) expect([1234, 5678]).toContain(row.v);
    expect(sink.end(false)).toBeUndefined();
    expect(sales.streaming).toBe(false);
    await expect(done).resolves.toEqual([
      { m: "Jan", v: 1234 },
      { m: "Feb", v: 5678 },
    ]);
    await expect(sales.done).resolves.toEqual(sales.value); // after the fence: settled at once
  });

  test("reads through to the value: JSON.stringify, spread, length, methods, keys", async () => {
    const { StreamedData, registry } = setup();
    const rows = new StreamedData("rows");
    const sink = registry.open("rows")!;
    sink.push("[1, 2, 3]");
    sink.end(false);
    expect(JSON.stringify(rows)).toBe("[1,2,3]");
    expect([...rows]).toEqual([1, 2, 3]);
    expect(rows.length).toBe(3);
    expect((rows.map as (f: (n: number) => number) => number[])((n) => n * 2)).toEqual([2, 4, 6]);
    expect(Object.keys(rows.value as object)).toEqual(["0", "1", "2"]);
    expect(rows instanceof StreamedData).toBe(true);
    expect((rows as { then?: unknown }).then).toBeUndefined(); // never thenable
    await expect(Promise.resolve(rows)).resolves.toBe(rows);
    const stats = new StreamedData("stats");
    const statsSink = registry.open("stats")!;
    statsSink.push('{"total": 5, "id": "mine"}');
    statsSink.end(false);
    expect(stats.total).toBe(5);
    expect(stats.id).toBe("stats"); // API names win; the data's own id is stats.value.id
    expect(Object.keys(stats)).toEqual(["total", "id"]);
    expect({ ...(stats.value as object) }).toEqual({ total: 5, id: "mine" });
    expect(() => {
      (stats as Record<string, unknown>).total = 1;
    }).toThrow(TypeError);
  });

  test("each fence replaces the value; the old one stays until the new one has a token", async () => {
    const { StreamedData, registry } = setup();
    const data = new StreamedData("d");
    let sink = registry.open("d")!;
    sink.push('{"a": 1}');
    sink.end(false);
    sink = registry.open("d")!;
    expect(data.value).toEqual({ a: 1 });
    sink.push('{"b"');
    await streamIdle(data);
    expect(data.value).toEqual({});
    sink.push(": 2}");
    sink.end(false);
    expect(data.value).toEqual({ b: 2 });
  });

  test("malformed JSON keeps the last valid value and reports data-invalid; done rejects", async () => {
    const { StreamedData, registry } = setup();
    const data = new StreamedData("d");
    const done = data.done;
    const sink = registry.open("d")!;
    await stream(sink, data, "[1, 2, 3 x 4]", 4);
    const error = sink.end(false);
    expect(error).toMatchObject({ code: "data-invalid", name: "StreamedDataError" });
    await streamIdle(data);
    // `done` settles once the parser has finished what it was given and the kept value is in place.
    await done.catch(() => undefined);
    expect(data.value).toEqual([1, 2, 3]);
    expect(data.error?.code).toBe("data-invalid");
    await expect(done).rejects.toMatchObject({ code: "data-invalid" });
  });

  test("a truncated fence keeps its partial value and reports the truncation", async () => {
    const { StreamedData, registry } = setup();
    const data = new StreamedData("d");
    const sink = registry.open("d")!;
    await stream(sink, data, '[{"a": 1}, {"a": 2}, {"a', 5);
    expect(sink.end(true)).toMatchObject({ code: "data-invalid", message: expect.stringContaining("ended before") });
    await data.done.catch(() => undefined);
    expect(data.value).toEqual([{ a: 1 }, { a: 2 }, {}]);
  });

  test("an unterminated fence whose JSON is complete is fine", () => {
    const { StreamedData, registry } = setup();
    const data = new StreamedData("d");
    const sink = registry.open("d")!;
    sink.push("[1]");
    expect(sink.end(true)).toBeUndefined();
    expect(data.value).toEqual([1]);
  });

  test("unknown ids have no sink; a duplicate id is reported and taken over", () => {
    const { StreamedData, registry, duplicates } = setup();
    expect(registry.open("nope")).toBeUndefined();
    const first = new StreamedData("x");
    const second = new StreamedData("x");
    expect(duplicates).toEqual(["x"]);
    const sink = registry.open("x")!;
    sink.push("1");
    sink.end(false);
    expect(second.value).toBe(1);
    expect(first.value).toBeUndefined();
    expect(() => new StreamedData("")).toThrow(TypeError);
  });

  test("subscribers hear progress and the end", async () => {
    const { StreamedData, registry } = setup();
    const data = new StreamedData("d");
    let invalidations = 0;
    const watcher: Subscriber = { invalidate: () => void invalidations++, addSource: () => {} };
    subscribe(streamStateOf(data)!, watcher);
    const sink = registry.open("d")!;
    await stream(sink, data, "[1, 2, 3]", 2);
    sink.end(false);
    expect(invalidations).toBeGreaterThan(3);
  });
});
