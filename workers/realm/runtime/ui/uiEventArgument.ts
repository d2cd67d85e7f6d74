/**
 * What a realm handler receives for a UI_EVENT (src/wire/mount.ts
 * `UiEventPayload`). Pure. Shaped after what model-written React code
 * expects: Radix-style `onValueChange(value)` / `onCheckedChange(checked)`,
 * DOM-style events elsewhere (`e.target.value`, `e.target.checked`, `e.key`,
 * `e.preventDefault()`).
 */
import type { UiEventPayload } from "../../../../src/wire/mount";

export interface RealmEventTarget {
  name?: string;
  value?: unknown;
  checked?: boolean;
  type?: string;
  /** Form submits: the field values keyed by name. */
  values?: Record<string, unknown>;
  /** A file input: the chosen files (File-like, read through the host). */
  files?: unknown[];
}

export interface RealmEvent {
  type: string;
  target: RealmEventTarget;
  currentTarget: RealmEventTarget;
  key?: string;
  /** Form submits: the field values keyed by name (also on `target.values`). */
  values?: Record<string, unknown>;
  defaultPrevented: boolean;
  nativeEvent: object;
  preventDefault(): void;
  stopPropagation(): void;
  persist(): void;
}

/** "onClick" → "click", "onKeyDown" → "keydown". */
export function eventType(handler: string): string {
  return handler.slice(2).toLowerCase();
}

/** `files`: turns a chosen file's handle into what model code reads (runtime/capabilities/files.ts). */
export function uiEventArgument(
  handler: string,
  payload: UiEventPayload,
  props: Record<string, unknown>,
  files?: (chosen: NonNullable<UiEventPayload["files"]>[number]) => unknown,
): unknown {
  if (handler === "onValueChange") return payload.value;
  if (handler === "onCheckedChange") return payload.checked ?? payload.value;
  const target: RealmEventTarget = {};
  const name = payload.name ?? (typeof props.name === "string" ? props.name : undefined);
  if (name !== undefined) target.name = name;
  if (payload.value !== undefined) target.value = payload.value;
  else if (props.value !== undefined && typeof props.value !== "function") target.value = props.value;
  if (payload.checked !== undefined) target.checked = payload.checked;
  if (typeof props.type === "string") target.type = props.type;
  if (payload.values !== undefined) target.values = payload.values;
  if (payload.files !== undefined && files) target.files = payload.files.map(files);
  const event: RealmEvent = {
    type: eventType(handler),
    target,
    currentTarget: target,
    defaultPrevented: false,
    nativeEvent: {},
    preventDefault() {
      event.defaultPrevented = true;
    },
    stopPropagation() {},
    persist() {},
  };
  if (payload.key !== undefined) event.key = payload.key;
  if (payload.values !== undefined) event.values = payload.values;
  return event;
}
