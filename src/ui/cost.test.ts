import { describe, expect, it } from "vitest";
import { costOf, formatCost, readTokenPrice } from "./cost";

describe("token price and cost", () => {
  it("reads a price only when both numbers are valid and not negative", () => {
    expect(readTokenPrice("2.5", "10")).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(readTokenPrice(0, 0)).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    expect(readTokenPrice("", "10")).toBeUndefined();
    expect(readTokenPrice("-1", "10")).toBeUndefined();
    expect(readTokenPrice("abc", "1")).toBeUndefined();
  });

  it("prices reported usage per million tokens, and nothing without a price or usage", () => {
    const price = { inputPerMillion: 2.5, outputPerMillion: 10 };
    expect(costOf(1_000_000, 100_000, price)).toBeCloseTo(3.5);
    expect(costOf(7_689, 461, price)).toBeCloseTo(0.0238325);
    expect(costOf(7_689, 461, undefined)).toBeUndefined();
    expect(costOf(undefined, undefined, price)).toBeUndefined();
  });

  it("formats small sums with two significant digits and larger ones in cents", () => {
    expect(formatCost(0.0238325)).toBe("$0.024");
    expect(formatCost(3.5)).toBe("$3.50");
    expect(formatCost(0)).toBe("$0");
  });
});
