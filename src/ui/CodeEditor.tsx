import { useEffect, useRef } from "react";
import { EditorState } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { javascript } from "@codemirror/lang-javascript";

/**
 * The editor's code. Chromium's editable text types a space at the end of a
 * line as U+00A0 (which CodeMirror keeps): code gets a plain space.
 */
function codeOf(view: EditorView): string {
  return view.state.doc.toString().replace(/\u00a0/g, " ");
}

/**
 * Edit code (issue 29 §2): a code block as a real editor — CodeMirror 6
 * with JavaScript/TypeScript/JSX highlighting, bracket matching and undo —
 * labelled **Code**, with **Run** and **Cancel**. Loaded on first use (its
 * own chunk: Timeline imports it with `lazy`), so the app's initial
 * JavaScript does not grow. Ctrl/⌘+Enter runs; Escape then Tab leaves the
 * editor (Tab itself moves focus, as in any field).
 */
export default function CodeEditor({
  code,
  disabled,
  onRun,
  onCancel,
}: {
  code: string;
  /** Something runs (or the session is read-only): Run waits. */
  disabled: boolean;
  onRun(code: string): void;
  onCancel(): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const run = useRef(onRun);
  run.current = onRun;
  const blocked = useRef(disabled);
  blocked.current = disabled;

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        doc: code,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          javascript({ jsx: true, typescript: true }),
          keymap.of([
            {
              key: "Mod-Enter",
              run: (target) => {
                if (!blocked.current) run.current(codeOf(target));
                return true;
              },
            },
            ...defaultKeymap,
            ...historyKeymap,
          ]),
          EditorView.contentAttributes.of({ "aria-label": "Code" }),
          EditorView.lineWrapping,
        ],
      }),
    });
    view.current = editor;
    editor.focus();
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor starts from the block's code once; what the person types is the editor's.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <div className="lm-editor">
      <div className="lm-editor__area" ref={host} />
      <div className="lm-editor__actions">
        <button
          type="button"
          className="lm-button lm-button--primary"
          disabled={disabled}
          onClick={() => view.current && onRun(codeOf(view.current))}
        >
          Run
        </button>
        <button type="button" className="lm-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
