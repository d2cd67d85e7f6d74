/**
 * A rough token count for budgeting and the bench, without shipping a
 * tokenizer. It mimics how BPE tokenizers of the GPT-4 class pre-split text:
 * a word with its leading space is usually one token (long words several),
 * numbers go in groups of up to three digits, punctuation runs are short
 * tokens, a run of line breaks and indentation costs about one, non-ASCII characters
 * roughly one each. Plain `chars / 4` undercounts code and overcounts prose
 * with long words; this stays closer on both. Never exact: use it for sizes,
 * not for hard limits.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    if (/^ ?[A-Za-z]/.test(piece)) {
      const letters = piece.trimStart().length;
      tokens += Math.ceil(letters / 6);
    } else if (/^ ?\d/.test(piece)) {
      tokens += Math.ceil(piece.trimStart().length / 3);
    } else if (/^\s+$/.test(piece)) {
      // A single space belongs to the next word's token; other runs (line breaks, indentation) are about one.
      if (piece !== " ") tokens += 1;
    } else if (/^[\x21-\x7e]+$/.test(piece.trimStart())) {
      tokens += Math.ceil(piece.trimStart().length / 2);
    } else {
      tokens += [...piece.trimStart()].length;
    }
  }
  return tokens;
}

const PIECES = / ?[A-Za-z]+| ?\d+| ?[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+|\s+|[^\x00-\x7f]+/g;
