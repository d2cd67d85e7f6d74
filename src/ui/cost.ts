import { createContext } from "react";

/** What the person pays per million tokens (USD), entered in Settings. */
export interface TokenPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** A price from the form or storage: two finite, non-negative numbers, else absent. */
export function readTokenPrice(input: unknown, output: unknown): TokenPrice | undefined {
  const read = (value: unknown) => {
    const number = typeof value === "string" ? (value.trim() === "" ? NaN : Number(value)) : value;
    return typeof number === "number" && Number.isFinite(number) && number >= 0 ? number : undefined;
  };
  const inputPerMillion = read(input);
  const outputPerMillion = read(output);
  if (inputPerMillion === undefined || outputPerMillion === undefined) return undefined;
  return { inputPerMillion, outputPerMillion };
}

/** The cost of reported usage at a price; absent when there is no price or no usage. */
export function costOf(
  tokensIn: number | undefined,
  tokensOut: number | undefined,
  price: TokenPrice | undefined,
): number | undefined {
  if (!price || (tokensIn === undefined && tokensOut === undefined)) return undefined;
  return ((tokensIn ?? 0) * price.inputPerMillion + (tokensOut ?? 0) * price.outputPerMillion) / 1_000_000;
}

/** `$0.0123`: cents for larger sums, four significant places for small ones. */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  return `$${Number(usd.toPrecision(2)).toString()}`;
}

/** The price in Settings, for the interaction summaries. */
export const TokenPriceContext = createContext<TokenPrice | undefined>(undefined);
