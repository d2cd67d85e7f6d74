/**
 * The app's keyboard shortcuts, declared once: the key handler in App.tsx
 * matches with them and the **Keyboard shortcuts** dialog lists them.
 * Letters go with Ctrl (⌘ on a Mac); `/` and `?` work only while the focus is
 * not in a text field, so they never eat what a person types.
 */
export type ShortcutId = "new-session" | "focus-composer" | "stop" | "search-sessions" | "help";

export interface Shortcut {
  id: ShortcutId;
  /** What it does, as listed in the help. */
  description: string;
  /** The keys as shown (Ctrl is ⌘ on a Mac). */
  keys: (mac: boolean) => string[];
  matches(event: KeyboardEvent, typing: boolean): boolean;
}

const command = (event: KeyboardEvent) => event.ctrlKey || event.metaKey;

export const SHORTCUTS: readonly Shortcut[] = Object.freeze([
  {
    id: "new-session",
    description: "New session",
    keys: (mac: boolean) => [mac ? "⌘" : "Ctrl", "Shift", "O"],
    matches: (event: KeyboardEvent) =>
      command(event) && event.shiftKey && !event.altKey && event.key.toLowerCase() === "o",
  },
  {
    id: "focus-composer",
    description: "Focus the message box",
    keys: () => ["/"],
    matches: (event: KeyboardEvent, typing: boolean) =>
      !typing && !command(event) && !event.altKey && event.key === "/",
  },
  {
    id: "stop",
    description: "Stop the reply and its code",
    keys: () => ["Esc"],
    matches: (event: KeyboardEvent) => event.key === "Escape" && !event.shiftKey && !command(event) && !event.altKey,
  },
  {
    id: "search-sessions",
    description: "Search sessions",
    keys: (mac: boolean) => [mac ? "⌘" : "Ctrl", "K"],
    matches: (event: KeyboardEvent) =>
      command(event) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "k",
  },
  {
    id: "help",
    description: "Show these shortcuts",
    keys: () => ["?"],
    matches: (event: KeyboardEvent, typing: boolean) =>
      !typing && !command(event) && !event.altKey && event.key === "?",
  },
]);

/** Whether keys typed now go into a field (a text box, a select, an editable element). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement)
    return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(target.type);
  return false;
}

export function matchShortcut(event: KeyboardEvent): ShortcutId | undefined {
  if (event.defaultPrevented || event.isComposing) return undefined;
  const typing = isTyping(event.target);
  return SHORTCUTS.find((shortcut) => shortcut.matches(event, typing))?.id;
}

export const IS_MAC =
  typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
