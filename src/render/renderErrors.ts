/**
 * The renderer's catalog of error codes. Errors are data: the receiver and the
 * views report them (to the agent, which tells the model), never throw them.
 * Tests assert codes, never message text.
 */
export type RenderErrorCode =
  /** An op or message that is not an object of a known shape. */
  | "invalid-op"
  /** A node id that is not a positive safe integer (0 is the mount root, a parent only). */
  | "invalid-id"
  /** An id the host never created, or whose node was removed. */
  | "unknown-node"
  /** `create` with an id that already exists. */
  | "duplicate-node"
  /** A text node used as a parent, or a text op on an element. */
  | "wrong-node-kind"
  /** `remove` of a node that is not a child of that parent, or `before` not a child of the parent. */
  | "not-a-child"
  /** An insert that would make a node its own ancestor. */
  | "cycle"
  /** More nodes than the mount allows. */
  | "too-many-nodes"
  /** A tree deeper than the mount allows. */
  | "tree-too-deep"
  /** A node type name that is not a short identifier. */
  | "invalid-type"
  /** Props that are not plain JSON (functions other than handler markers, class instances, too deep). */
  | "invalid-props"
  /** Props larger than the per-node budget. */
  | "props-too-large"
  /** Text that is not a string or longer than the budget. */
  | "invalid-text"
  /** A snapshot that does not describe a tree. */
  | "invalid-snapshot"
  /** A component the catalog does not know (rendered as an inline error). */
  | "unknown-component"
  /** A prop the sanitizer dropped (unsafe URL, string event handler, raw HTML, ...). */
  | "unsafe-prop"
  /** A message for a mount the host does not know. */
  | "unknown-mount"
  /**
   * A first render sent in parts broke its sequence (a part out of order or
   * with no open under way, another message for the mount before the last
   * part, more nodes than announced): it is dropped, never shown.
   */
  | "open-abandoned"
  /** One batch produced more errors than are worth reporting; the rest were counted. */
  | "too-many-errors";

export interface RenderError {
  code: RenderErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export function renderError(code: RenderErrorCode, message: string, details?: Record<string, unknown>): RenderError {
  return details === undefined ? { code, message } : { code, message, details };
}
