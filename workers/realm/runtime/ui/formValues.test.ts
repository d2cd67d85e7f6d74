import { describe, expect, test } from "vitest";
import { z } from "zod";
import { buildFormObject, coerceBySchema, parseForm, splitFieldName, type ZodLike } from "./formValues";

const schema = (value: unknown) => value as ZodLike;

describe("buildFormObject", () => {
  test("dotted and bracketed names nest; numeric segments make arrays", () => {
    expect(splitFieldName("a[0][b]")).toEqual(["a", "0", "b"]);
    expect(
      buildFormObject({
        name: "Ada",
        "address.city": "Paris",
        "address.zip": "75001",
        "tags.0": "x",
        "tags.1": "y",
        "items[0].qty": "2",
        "items[1].qty": "3",
        agree: true,
        many: ["a", "b"],
      }),
    ).toEqual({
      name: "Ada",
      address: { city: "Paris", zip: "75001" },
      tags: ["x", "y"],
      items: [{ qty: "2" }, { qty: "3" }],
      agree: true,
      many: ["a", "b"],
    });
  });

  test("holes are dropped and prototype keys ignored", () => {
    expect(buildFormObject({ "t.0": "a", "t.2": "c", "__proto__.x": "1", "constructor.prototype.y": "2" })).toEqual({
      t: ["a", "c"],
    });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe("coerceBySchema + parseForm", () => {
  const Order = z.object({
    name: z.string().min(1),
    quantity: z.number().int().positive(),
    price: z.number().optional(),
    gift: z.boolean(),
    newsletter: z.boolean().optional(),
    size: z.enum(["S", "M", "L"]),
    note: z.string().email().optional(),
    rating: z.number().default(3),
    address: z.object({ city: z.string(), zip: z.string().regex(/^\d{5}$/) }),
    tags: z.array(z.string()),
    items: z.array(z.object({ qty: z.number() })),
    when: z.date().optional(),
    level: z.union([z.literal(1), z.literal(2)]).optional(),
  });

  test("a valid submit resolves with coerced numbers, booleans, nesting and arrays", () => {
    const values = buildFormObject({
      name: "Ada",
      quantity: "2",
      price: "",
      gift: "on",
      size: "M",
      note: "",
      rating: "",
      "address.city": "Paris",
      "address.zip": "75001",
      tags: "solo",
      "items.0.qty": "1.5",
      when: "2024-05-01",
      level: "2",
    });
    const result = parseForm(values, schema(Order));
    expect(result).toEqual({
      ok: true,
      value: {
        name: "Ada",
        quantity: 2,
        gift: true,
        size: "M",
        rating: 3,
        address: { city: "Paris", zip: "75001" },
        tags: ["solo"],
        items: [{ qty: 1.5 }],
        when: new Date("2024-05-01"),
        level: 2,
      },
    });
  });

  test("an invalid submit gives one message per field, keyed by dotted name", () => {
    const result = parseForm(
      buildFormObject({ name: "", quantity: "abc", size: "", "address.zip": "1", "items.0.qty": "x" }),
      schema(Order),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual([
      "address.city",
      "address.zip",
      "items.0.qty",
      "name",
      "quantity",
      "size",
    ]);
    expect(result.errors["address.city"]).toBe("Required");
    expect(result.errors.size).toBe("Required");
  });

  test("friendly messages for the person, unless the schema sets its own", () => {
    const Form = z.object({
      name: z.string().min(1),
      code: z.string().min(3).max(4),
      age: z.number().min(18).max(99),
      email: z.string().email(),
      qty: z.number(),
      pick: z.array(z.string()).min(1),
      size: z.enum(["S", "M"]),
    });
    const result = parseForm(
      { name: "", code: "ab", age: "12", email: "x", qty: "many", pick: [], size: "XL" },
      schema(Form),
    );
    expect(result).toEqual({
      ok: false,
      errors: {
        name: "Required",
        code: "Use at least 3 characters",
        age: "Must be at least 18",
        email: "Enter a valid email address",
        qty: "Enter a number",
        pick: "Choose at least 1",
        size: "Choose one of: S, M",
      },
    });
  });

  test("messages set in the schema win", () => {
    const result = parseForm({}, schema(z.object({ email: z.string({ error: "Email please" }) })));
    expect(result).toEqual({ ok: false, errors: { email: "Email please" } });
  });

  test("whole-form refinements land under the empty key", () => {
    const Passwords = z.object({ a: z.string(), b: z.string() }).refine((v) => v.a === v.b, "Passwords differ");
    expect(parseForm({ a: "x", b: "y" }, schema(Passwords))).toEqual({ ok: false, errors: { "": "Passwords differ" } });
  });

  test("booleans: words, a missing checkbox is false; nullable empty is null; pipes coerce their input", () => {
    expect(
      coerceBySchema({ a: "false", b: "yes" }, schema(z.object({ a: z.boolean(), b: z.boolean(), c: z.boolean() }))),
    ).toEqual({ a: false, b: true, c: false });
    expect(coerceBySchema("", schema(z.number().nullable()))).toBeNull();
    expect(coerceBySchema("4", schema(z.number().transform((n) => n * 2)))).toBe(4);
    expect(parseForm({ n: "4" }, schema(z.object({ n: z.number().transform((n) => n * 2) })))).toEqual({
      ok: true,
      value: { n: 8 },
    });
  });
});
