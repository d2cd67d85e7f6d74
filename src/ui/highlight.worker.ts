/**
 * Highlighting off the main thread: shiki's grammar compilation and
 * tokenizing take long tasks (hundreds of ms for a first TSX block on a slow
 * machine), which would freeze the page mid-reply. The app's own script
 * (worker-src 'self'); it sees only code text and returns tokens.
 */
import { highlight } from "./highlight";

interface Request {
  id: number;
  code: string;
  lang: string;
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Request>) => void) | null;
  postMessage(message: unknown): void;
};
scope.onmessage = (event) => {
  const { id, code, lang } = event.data;
  highlight(code, lang).then(
    (lines) => scope.postMessage({ id, lines }),
    () => scope.postMessage({ id, lines: undefined }),
  );
};
