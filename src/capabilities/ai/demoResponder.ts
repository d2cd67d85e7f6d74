/**
 * What the offline demo model answers a model call from code: a small
 * scripted responder, enough for the demo's translator to work offline.
 * "Translate to French: good morning, my friend" (the language in the
 * prompt or the system text) is translated word by word from a tiny
 * dictionary (French, Spanish, German; unknown words stay as they are);
 * anything else gets a sentence saying what the demo can do.
 *
 * `createDemoResponder()` is that responder as an AI SDK model, streaming its
 * answer in a few pieces, with estimated tokens, so a demo call goes the
 * same way as a real one. Types only from the SDK: nothing of it loads here.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { estimateTokens } from "../../llm/estimateTokens";

type Language = "french" | "spanish" | "german";

/** Phrases first (longest first), then words: [English, French, Spanish, German]. */
const DICTIONARY: readonly (readonly [string, string, string, string])[] = [
  ["good morning", "bonjour", "buenos días", "guten Morgen"],
  ["good evening", "bonsoir", "buenas tardes", "guten Abend"],
  ["good night", "bonne nuit", "buenas noches", "gute Nacht"],
  ["thank you", "merci", "gracias", "danke"],
  ["how are you", "comment allez-vous", "cómo estás", "wie geht es dir"],
  ["see you later", "à plus tard", "hasta luego", "bis später"],
  ["hello", "bonjour", "hola", "hallo"],
  ["goodbye", "au revoir", "adiós", "auf Wiedersehen"],
  ["please", "s'il vous plaît", "por favor", "bitte"],
  ["yes", "oui", "sí", "ja"],
  ["no", "non", "no", "nein"],
  ["my", "mon", "mi", "mein"],
  ["friend", "ami", "amigo", "Freund"],
  ["i", "je", "yo", "ich"],
  ["love", "aime", "amo", "liebe"],
  ["you", "vous", "tú", "du"],
  ["the", "le", "el", "der"],
  ["a", "un", "un", "ein"],
  ["and", "et", "y", "und"],
  ["is", "est", "es", "ist"],
  ["cat", "chat", "gato", "Katze"],
  ["dog", "chien", "perro", "Hund"],
  ["house", "maison", "casa", "Haus"],
  ["water", "eau", "agua", "Wasser"],
  ["bread", "pain", "pan", "Brot"],
  ["cheese", "fromage", "queso", "Käse"],
  ["coffee", "café", "café", "Kaffee"],
  ["tea", "thé", "té", "Tee"],
  ["book", "livre", "libro", "Buch"],
  ["world", "monde", "mundo", "Welt"],
  ["day", "jour", "día", "Tag"],
  ["beautiful", "beau", "hermoso", "schön"],
  ["welcome", "bienvenue", "bienvenido", "willkommen"],
];

const COLUMN: Record<Language, 1 | 2 | 3> = { french: 1, spanish: 2, german: 3 };
const LANGUAGE = /\b(french|spanish|german)\b/i;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `text` in `language`, phrase by phrase and word by word; what the dictionary lacks stays as it is. */
export function translate(text: string, language: Language): string {
  let result = text;
  const column = COLUMN[language];
  // Placeholders keep a translated word from being translated again (French "est" is not English).
  const done: string[] = [];
  for (const entry of DICTIONARY) {
    const pattern = new RegExp(`(?<![\\p{L}'])${escape(entry[0])}(?![\\p{L}'])`, "giu");
    result = result.replace(pattern, (match) => {
      const word = entry[column];
      const capital = match[0] !== match[0].toLowerCase();
      done.push(capital ? word[0].toUpperCase() + word.slice(1) : word);
      return `\u0000${done.length - 1}\u0000`;
    });
  }
  return result.replace(/\u0000(\d+)\u0000/g, (_match, index: string) => done[Number(index)]);
}

/** The demo's answer to a prompt (its system text and its last message). */
export function demoAnswer(system: string, last: string): string {
  const language = (LANGUAGE.exec(last) ?? LANGUAGE.exec(system))?.[1]?.toLowerCase() as Language | undefined;
  if (language && /translat/i.test(`${system} ${last}`)) {
    // "Translate to French: good morning" → the text after the instruction; with the instruction in the system text, all of it.
    const instruction = /translat[^:\n]*(french|spanish|german)[^:\n]*:\s*/i.exec(last);
    const text = instruction ? last.slice(instruction.index + instruction[0].length) : last;
    return translate(text.trim(), language);
  }
  return (
    "(offline demo model) I can only translate short phrases here, e.g. “Translate to French: good morning, my friend”. " +
    "Add an API key in Settings for real answers."
  );
}

function textOf(call: LanguageModelV3CallOptions): { system: string; last: string; all: string } {
  const texts = call.prompt.map((message) => ({
    role: message.role,
    text:
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => ("text" in part ? part.text : "")).join(""),
  }));
  return {
    system: texts
      .filter((message) => message.role === "system")
      .map((message) => message.text)
      .join("\n"),
    last: texts.filter((message) => message.role === "user").at(-1)?.text ?? "",
    all: texts.map((message) => message.text).join("\n"),
  };
}

function usage(promptText: string, answer: string): LanguageModelV3Usage {
  const inputTokens = estimateTokens(promptText);
  const outputTokens = estimateTokens(answer);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

/** The responder as a model; `delayMs` between pieces (default 20). */
export function createDemoResponder(options: { delayMs?: number } = {}): LanguageModelV3 {
  const delayMs = options.delayMs ?? 20;
  return {
    specificationVersion: "v3",
    provider: "livemark.demo",
    modelId: "livemark-demo",
    supportedUrls: {},
    async doGenerate(call) {
      call.abortSignal?.throwIfAborted();
      const { system, last, all } = textOf(call);
      const text = demoAnswer(system, last);
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: usage(all, text),
        warnings: [],
      };
    },
    async doStream(call) {
      const signal = call.abortSignal;
      signal?.throwIfAborted();
      const { system, last, all } = textOf(call);
      const text = demoAnswer(system, last);
      const pieces = text.match(/\S+\s*|\s+/g) ?? [];
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "0" },
        ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "0", delta })),
        { type: "text-end", id: "0" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(all, text) },
      ];
      let index = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          signal?.addEventListener(
            "abort",
            () => {
              clearTimeout(timer);
              try {
                controller.error(signal.reason ?? new DOMException("The operation was aborted.", "AbortError"));
              } catch {
                // Already closed.
              }
            },
            { once: true },
          );
        },
        async pull(controller) {
          if (index > 1 && index < parts.length - 2 && delayMs > 0)
            await new Promise<void>((resolve) => (timer = setTimeout(resolve, delayMs)));
          if (signal?.aborted) return;
          controller.enqueue(parts[index]);
          index += 1;
          if (index === parts.length) controller.close();
        },
        cancel() {
          clearTimeout(timer);
        },
      });
      return { stream };
    },
  };
}
