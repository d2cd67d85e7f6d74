import type { HighlightedLine } from "./highlight";

/**
 * The page's side of highlight.worker.ts: one worker, started on the first
 * code block, answering each request by id. If the worker cannot start, the
 * code stays plain text.
 */
let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, (lines: HighlightedLine[] | undefined) => void>();

function start(): Worker {
  if (worker) return worker;
  worker = new Worker(new URL("./highlight.worker.ts", import.meta.url), { type: "module", name: "highlight" });
  worker.onmessage = (event: MessageEvent<{ id: number; lines: HighlightedLine[] | undefined }>) => {
    pending.get(event.data.id)?.(event.data.lines);
    pending.delete(event.data.id);
  };
  worker.onerror = () => {
    for (const answer of pending.values()) answer(undefined);
    pending.clear();
  };
  return worker;
}

export function highlight(code: string, lang: string): Promise<HighlightedLine[] | undefined> {
  return new Promise((resolve) => {
    const id = ++nextId;
    pending.set(id, resolve);
    start().postMessage({ id, code, lang });
  });
}
