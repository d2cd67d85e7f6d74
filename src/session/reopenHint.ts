/**
 * A hint in localStorage that this profile was left with a session to
 * reopen (one with messages): the first screen then needs the store, so the
 * page opens it at once, beside the realm's start, instead of after READY
 * (afterRealmStart.ts). A hint only, never data: the store decides what
 * opens, and a stale hint (no session, the store deleted) costs only the
 * early start; the next start without a session clears it.
 */
const KEY = "livemark:reopen";

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function reopenHinted(): boolean {
  try {
    return storage()?.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

function setHint(reopen: boolean): void {
  try {
    if (reopen) storage()?.setItem(KEY, "1");
    else storage()?.removeItem(KEY);
  } catch {
    // Refused (a full or blocked storage): the next start keeps the usual order.
  }
}

interface Watched {
  subscribe(listener: () => void): () => void;
  getState(): {
    starting: boolean;
    preview?: unknown;
    agent?: {
      getState(): { messages: readonly unknown[] };
      subscribe(listener: (state: { messages: readonly unknown[] }) => void): () => void;
    };
  };
}

/** Keeps the hint in step with the open session: set while it has a message, cleared while it has none. */
export function watchReopenHint(sessions: Watched): () => void {
  let written: boolean | undefined;
  const note = (reopen: boolean) => {
    if (reopen === written) return;
    written = reopen;
    setHint(reopen);
  };
  let watchedAgent: unknown;
  let unwatchAgent: (() => void) | undefined;
  const check = () => {
    const { starting, preview, agent } = sessions.getState();
    // A share link's preview is not the person's session; until the first session is open there is nothing to say.
    if (starting || preview || agent === watchedAgent) return;
    unwatchAgent?.();
    unwatchAgent = undefined;
    watchedAgent = agent;
    if (!agent) return;
    note(agent.getState().messages.length > 0);
    unwatchAgent = agent.subscribe((state) => note(state.messages.length > 0));
  };
  const unsubscribe = sessions.subscribe(check);
  check();
  return () => {
    unsubscribe();
    unwatchAgent?.();
  };
}
