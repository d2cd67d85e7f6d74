import { useRef, useState, type ChangeEvent, type ReactNode } from "react";
import type { SessionController, SessionsState } from "../session/sessionController";

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function Sidebar({
  controller,
  state,
  open = false,
  onNavigate,
  onOpenRecentlyDeleted,
  children,
}: {
  controller: SessionController;
  state: SessionsState;
  /** On a narrow screen the list is a drawer: shown only while open. */
  open?: boolean;
  /** A session was opened or created (a drawer closes). */
  onNavigate?: () => void;
  /** **Recently deleted**: the deleted sessions, with Restore and Delete forever. */
  onOpenRecentlyDeleted?: () => void;
  /** More controls for the list's footer (the theme, the shortcuts). */
  children?: ReactNode;
}) {
  const [query, setQuery] = useState("");
  const [renaming, setRenaming] = useState<string | undefined>();
  const [draft, setDraft] = useState("");
  const fileInput = useRef<HTMLInputElement>(null);
  const list = state.searchResults ? state.searchResults.map((hit) => hit.session) : state.sessions;
  const snippets = new Map(state.searchResults?.map((hit) => [hit.session.id, hit.snippet]) ?? []);
  const disabled = state.storage !== "ready";

  const onImport = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = "";
    if (file) await controller.importFrom(file);
  };

  return (
    <nav id="lm-sidebar" className={`lm-sidebar${open ? " lm-sidebar--open" : ""}`} aria-label="Sessions">
      {onNavigate && (
        <button
          type="button"
          className="lm-icon-button lm-drawer-close"
          aria-label="Close sessions"
          onClick={onNavigate}
        >
          ×
        </button>
      )}
      <button
        type="button"
        className="lm-button lm-button--primary"
        disabled={disabled}
        onClick={() => {
          onNavigate?.();
          void controller.newSession();
        }}
      >
        New session
      </button>
      <input
        type="search"
        className="lm-sidebar__search"
        aria-label="Search sessions"
        placeholder="Search sessions"
        value={query}
        disabled={disabled}
        onChange={(event) => {
          setQuery(event.target.value);
          void controller.search(event.target.value);
        }}
      />
      {state.searchResults && list.length === 0 && (
        <p className="lm-sidebar__empty" aria-live="polite">
          No sessions match
        </p>
      )}
      <ul className="lm-sidebar__list">
        {list.map((session) => (
          <li
            key={session.id}
            className={session.id === state.current?.id ? "lm-session lm-session--current" : "lm-session"}
          >
            {renaming === session.id ? (
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  setRenaming(undefined);
                  void controller.rename(session.id, draft);
                }}
              >
                <input
                  aria-label="Session title"
                  value={draft}
                  autoFocus
                  onChange={(event) => setDraft(event.target.value)}
                  onBlur={() => setRenaming(undefined)}
                  onKeyDown={(event) => event.key === "Escape" && setRenaming(undefined)}
                />
              </form>
            ) : (
              <button
                type="button"
                className="lm-session__open"
                aria-current={session.id === state.current?.id ? "true" : undefined}
                onClick={() => {
                  onNavigate?.();
                  void controller.open(session.id);
                }}
                onDoubleClick={() => {
                  setDraft(session.title);
                  setRenaming(session.id);
                }}
              >
                <span className="lm-session__title">{session.title}</span>
                {session.origin === "imported" && <span className="lm-session__badge">imported</span>}
                {snippets.get(session.id) && <span className="lm-session__snippet">{snippets.get(session.id)}</span>}
              </button>
            )}
            <span className="lm-session__actions">
              <button
                type="button"
                className="lm-icon-button"
                aria-label={`Rename ${session.title}`}
                title="Rename"
                onClick={() => {
                  setDraft(session.title);
                  setRenaming(session.id);
                }}
              >
                ✎
              </button>
              <button
                type="button"
                className="lm-icon-button"
                aria-label={`Delete ${session.title}`}
                title="Delete"
                onClick={() => void controller.remove(session.id)}
              >
                ×
              </button>
            </span>
          </li>
        ))}
      </ul>
      <div className="lm-sidebar__footer">
        <label className="lm-button lm-file-button">
          Import session
          <input ref={fileInput} type="file" accept=".json,application/json" disabled={disabled} onChange={onImport} />
        </label>
        <button
          type="button"
          className="lm-button"
          disabled={disabled}
          onClick={async () => {
            const file = await controller.exportEverything();
            if (file) download(file.name, file.text);
          }}
        >
          Export all
        </button>
        {onOpenRecentlyDeleted && (
          <button
            type="button"
            className="lm-button"
            aria-haspopup="dialog"
            disabled={disabled}
            title={
              state.deleted.length > 0
                ? `${state.deleted.length} deleted in the last 30 days: Restore or Delete forever`
                : "Deleted sessions are kept here for 30 days"
            }
            onClick={onOpenRecentlyDeleted}
          >
            Recently deleted
          </button>
        )}
        {children}
      </div>
    </nav>
  );
}

export { download };
