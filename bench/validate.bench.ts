/**
 * The host's gate on the hot path: every message from the realm is validated
 * once, at the port. Compares our gate (the realm → host table in
 * src/wire/types.ts, written in the schema kit src/wire/schema.ts; the
 * "handwritten" keys keep their names across runs) with the same
 * checks written as zod schemas (strict shapes, JSON props with a depth
 * limit, capped strings, `__proto__` dropped), on the two messages that come
 * most often while a reply streams and a mount updates: a console event and a
 * batch of mount ops.
 */
import { z } from "zod";
import { validateRealmMessage } from "../src/sandbox/validateRealmMessage";
import { MAX_WIRE_STRING } from "../src/wire/constants";

const capped = z
  .string()
  .transform((value) => (value.length <= MAX_WIRE_STRING ? value : value.slice(0, MAX_WIRE_STRING)));
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const nodeId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const typeName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^(#text|[A-Za-z][A-Za-z0-9_.:-]*)$/);
const json: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    capped,
    z.boolean(),
    z.null(),
    z.number().transform((value) => (Number.isFinite(value) ? value : null)),
    z.array(json),
    z.record(z.string(), json).transform((record) => {
      delete (record as Record<string, unknown>)["__proto__"];
      return record;
    }),
  ]),
);
const handler = z.object({ $handler: z.literal(true) }).transform(() => ({ $handler: true as const }));
const props = z.record(
  z.string().refine((key) => key !== "children"),
  z.union([handler, json]),
);
const op = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("create"),
    id: nodeId,
    type: typeName,
    props: props.optional(),
    text: capped.optional(),
  }),
  z.strictObject({ op: z.literal("insert"), parent: count, child: nodeId, before: nodeId.optional() }),
  z.strictObject({ op: z.literal("remove"), parent: count, child: nodeId }),
  z.strictObject({ op: z.literal("text"), id: nodeId, text: capped }),
  z.strictObject({ op: z.literal("props"), id: nodeId, props }),
]);
const realmMessage = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("mount"),
    kind: z.literal("ops"),
    mountId: z.string().min(1).max(64),
    ops: z.array(op).max(100_000),
  }),
  z.object({
    type: z.literal("exec-event"),
    event: z.discriminatedUnion("type", [
      z.object({
        type: z.literal("console"),
        block: count,
        statement: count,
        level: z.enum(["debug", "log", "info", "warn", "error"]),
        text: capped,
        reply: count.optional(),
        cause: count.optional(),
      }),
      z.object({ type: z.literal("block-done"), block: count }),
    ]),
  }),
]);

function messages() {
  const consoleEvent = structuredClone({
    type: "exec-event",
    event: {
      type: "console",
      block: 1,
      statement: 3,
      level: "log",
      text: "rolled 4 | rolls so far: 1, 4, 6",
      reply: 2,
    },
  });
  const ops = [];
  for (let id = 1; id <= 200; id += 1) {
    ops.push({
      op: "create",
      id,
      type: id % 3 === 0 ? "#text" : "div",
      ...(id % 3 === 0
        ? { text: `row ${id}` }
        : {
            props: {
              className: "flex gap-2 p-1",
              style: { width: id },
              onClick: { $handler: true },
              data: [1, 2, { a: "b" }],
            },
          }),
    });
    ops.push({ op: "insert", parent: 0, child: id });
  }
  const opsMessage = structuredClone({ type: "mount", kind: "ops", mountId: "m1", ops });
  return { consoleEvent, opsMessage };
}

function time(label: string, runs: number, body: () => void): number {
  for (let index = 0; index < Math.min(200, runs); index += 1) body();
  const start = performance.now();
  for (let index = 0; index < runs; index += 1) body();
  const perCall = ((performance.now() - start) / runs) * 1000;
  console.log(`${label}: ${perCall.toFixed(2)} µs per message`);
  return Number(perCall.toFixed(2));
}

export async function run(): Promise<Record<string, number>> {
  const { consoleEvent, opsMessage } = messages();
  if (!validateRealmMessage(consoleEvent).ok || !validateRealmMessage(opsMessage).ok)
    throw new Error("hand-written set refused a valid message");
  if (!realmMessage.safeParse(consoleEvent).success || !realmMessage.safeParse(opsMessage).success)
    throw new Error("zod set refused a valid message");
  return {
    "validate.console.handwritten.us": time(
      "console event, hand-written",
      20_000,
      () => void validateRealmMessage(consoleEvent),
    ),
    "validate.console.zod.us": time("console event, zod", 20_000, () => void realmMessage.safeParse(consoleEvent)),
    "validate.ops400.handwritten.us": time(
      "400 mount ops, hand-written",
      1_000,
      () => void validateRealmMessage(opsMessage),
    ),
    "validate.ops400.zod.us": time("400 mount ops, zod", 1_000, () => void realmMessage.safeParse(opsMessage)),
  };
}
