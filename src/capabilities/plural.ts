/** "1 request", "2 requests", "1,000 calls": a count and its noun, for summaries. */
export const plural = (count: number, word: string): string =>
  `${count.toLocaleString("en-US")} ${word}${count === 1 ? "" : "s"}`;
