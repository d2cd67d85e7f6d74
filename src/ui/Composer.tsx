import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent } from "react";
import { PaperclipIcon } from "./icons";
import { attachmentProblem, formatBytes, isImageAttachment, type Attachment } from "../agent/attachments";

/** The file's bytes as base64 (no `data:` prefix). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

/** The phone layout's breakpoint (styles.css). */
const NARROW_SCREEN = "(max-width: 720px)";

let narrowQuery: MediaQueryList | undefined;
const narrowScreen = () => (narrowQuery ??= window.matchMedia(NARROW_SCREEN));
// Module-level, so the subscription is not renewed (a matchMedia per render) each time the composer renders while a reply streams.
function watchNarrowScreen(onChange: () => void): () => void {
  const query = narrowScreen();
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}
const isNarrowScreen = () => narrowScreen().matches;
const notNarrowOnServer = () => false;

/** Whether the screen is phone-narrow, following rotation and resizing. */
function useNarrowScreen(): boolean {
  return useSyncExternalStore(watchNarrowScreen, isNarrowScreen, notNarrowOnServer);
}

/** Files dropped elsewhere on the window that are not session files (App.tsx): the composer attaches them. */
export const ATTACH_FILES_EVENT = "livemark:attach-files";

/** Said when the person presses Enter while a reply runs; the message stays in the composer. */
export const NOT_SENT_BUSY =
  "Not sent: a reply is still running. Your message is kept here; send it when it has finished, or press Stop.";

/** Said by the composer shown while sessions open when a message already waits for them; this one stays. */
export const NOT_SENT_WAITING =
  "Not sent: a message is already waiting for your session to open. This one is kept here; send it when that one has gone, or press Stop to take that one back.";

/** What is written but not sent: it moves from the composer shown while sessions open to the session's own. */
export interface ComposerDraft {
  text: string;
  attachments: Attachment[];
  /** The box had the focus: the composer that takes the draft over takes the focus too, so typing goes on there. */
  focused?: boolean;
  /** Where the caret was (start, end). */
  selection?: readonly [number, number];
}

export function Composer({
  busy,
  busyReason = NOT_SENT_BUSY,
  onSend,
  onStop,
  placeholder,
  initialDraft,
  onDraftChange,
  onTextChange,
}: {
  busy: boolean;
  /** Why Enter sends nothing while busy; the line goes when busy ends. */
  busyReason?: string;
  /** Returns why the message was not sent (the composer keeps it), or undefined when it went. */
  onSend: (text: string, attachments: Attachment[]) => string | undefined | void;
  onStop: () => void;
  placeholder?: string;
  /** Read once, when the composer appears. */
  initialDraft?: () => ComposerDraft | undefined;
  onDraftChange?: (draft: ComposerDraft) => void;
  /** The text changed (typed, sent, taken back): the session keeps it as its draft. */
  onTextChange?: (text: string) => void;
}) {
  const [initial] = useState(() => initialDraft?.());
  const [text, setText] = useState(initial?.text ?? "");
  const [attachments, setAttachments] = useState<Attachment[]>(initial?.attachments ?? []);
  // Followed only where the draft is handed on (the composer shown while sessions open).
  const [focused, setFocused] = useState(false);
  const [selection, setSelection] = useState<readonly [number, number] | undefined>();
  const draftListener = useRef(onDraftChange);
  draftListener.current = onDraftChange;
  useEffect(
    () => draftListener.current?.({ text, attachments, focused, selection }),
    [text, attachments, focused, selection],
  );
  const textListener = useRef(onTextChange);
  textListener.current = onTextChange;
  useEffect(() => textListener.current?.(text), [text]);
  const box = useRef<HTMLTextAreaElement>(null);
  // The composer that had the focus went away with the draft (the sessions opened): the keys pressed next land
  // here, at the same caret, not on the page.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element || !initial?.focused || (document.activeElement !== null && document.activeElement !== document.body))
      return;
    element.focus();
    const [start, end] = initial.selection ?? [element.value.length, element.value.length];
    element.setSelectionRange(start, end);
  }, []);
  const follow = onDraftChange !== undefined;
  const [problem, setProblem] = useState<string | undefined>();
  // The reply the message waited for has ended: why it was not sent no longer holds.
  useEffect(() => {
    if (!busy) setProblem((current) => (current === busyReason ? undefined : current));
  }, [busy, busyReason]);
  const fileInput = useRef<HTMLInputElement>(null);
  // A phone's composer is two short lines wide: the keys hint would be cut.
  const narrow = useNarrowScreen();
  const ready = text.trim() !== "" || attachments.length > 0;
  const send = () => {
    if (!ready) return;
    // Enter while a reply runs (the button is Stop then): keep the text and say why.
    if (busy) {
      setProblem(busyReason);
      return;
    }
    const refused = onSend(text, attachments);
    if (refused) {
      setProblem(refused);
      return;
    }
    setText("");
    setAttachments([]);
    setProblem(undefined);
  };
  /** Images (pasted, dropped, chosen) go to the model; other files to the realm. Too large: refused, with why. */
  const attach = async (files: readonly File[]) => {
    const added: Attachment[] = [];
    const problems: string[] = [];
    for (const file of files) {
      const why = attachmentProblem(file, [...attachments, ...added]);
      if (why) {
        problems.push(why);
        continue;
      }
      try {
        added.push({
          name: file.name || "pasted-image.png",
          mediaType: file.type || "application/octet-stream",
          size: file.size,
          data: await readBase64(file),
        });
      } catch (error) {
        problems.push(`“${file.name}” could not be read: ${(error as Error).message}.`);
      }
    }
    if (added.length > 0) setAttachments((current) => [...current, ...added]);
    setProblem(problems.length > 0 ? problems.join(" ") : undefined);
  };
  const attachRef = useRef(attach);
  attachRef.current = attach;
  useEffect(() => {
    const onAttach = (event: Event) => void attachRef.current((event as CustomEvent<File[]>).detail);
    window.addEventListener(ATTACH_FILES_EVENT, onAttach);
    return () => window.removeEventListener(ATTACH_FILES_EVENT, onAttach);
  }, []);
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
  return (
    <form
      className="lm-composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
      // Files dropped here are attachments (elsewhere on the page, a session file to import).
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes("Files")) return;
        event.preventDefault();
        event.stopPropagation();
      }}
      onDrop={(event) => {
        if (event.dataTransfer.files.length === 0) return;
        event.preventDefault();
        event.stopPropagation();
        void attach([...event.dataTransfer.files]);
      }}
    >
      {(attachments.length > 0 || problem) && (
        <div className="lm-composer__attachments">
          {attachments.length > 0 && (
            <ul aria-label="Attached files">
              {attachments.map((attachment, index) => (
                <li key={index}>
                  {attachment.name} ({formatBytes(attachment.size)}
                  {isImageAttachment(attachment) ? ", sent to the model as an image" : ", for the reply's code to read"}
                  )
                  <button
                    type="button"
                    className="lm-icon-button"
                    aria-label={`Remove ${attachment.name}`}
                    onClick={() => setAttachments((current) => current.filter((_, at) => at !== index))}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ul>
          )}
          {problem && (
            <p className="lm-notice lm-notice--error" role="alert">
              {problem}
            </p>
          )}
        </div>
      )}
      <label htmlFor="lm-message" className="lm-visually-hidden">
        Message
      </label>
      <textarea
        id="lm-message"
        ref={box}
        value={text}
        onFocus={follow ? () => setFocused(true) : undefined}
        onBlur={follow ? () => setFocused(false) : undefined}
        onSelect={
          follow
            ? (event) => setSelection([event.currentTarget.selectionStart, event.currentTarget.selectionEnd])
            : undefined
        }
        rows={2}
        placeholder={
          placeholder ??
          (narrow
            ? "Ask for something that runs…"
            : "Ask for something that runs… (Enter sends, Shift+Enter for a new line)")
        }
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        onPaste={(event) => {
          const files = [...event.clipboardData.files];
          if (files.length === 0) return;
          event.preventDefault();
          void attach(files);
        }}
      />
      <input
        ref={fileInput}
        id="lm-attach"
        type="file"
        multiple
        hidden
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = "";
          void attach(files);
        }}
      />
      <button
        type="button"
        className="lm-button lm-composer__attach"
        title="Attach files: images go to the model, other files to the code in the sandbox"
        onClick={() => fileInput.current?.click()}
      >
        <PaperclipIcon className="lm-composer__icon" size={20} />
        <span className="lm-composer__label">Attach files</span>
      </button>
      {busy ? (
        <button type="button" className="lm-button lm-button--stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" className="lm-button lm-button--primary" disabled={!ready}>
          Send
        </button>
      )}
    </form>
  );
}
