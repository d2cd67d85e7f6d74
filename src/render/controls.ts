/**
 * Which nodes are form controls, and how the host owns their values. Pure.
 *
 * "Partially controlled" (DESIGN.md §3): the host keeps the live value of
 * every control and renders it; the realm's `value`/`checked` prop is a
 * request. A request is applied only when it is news to the host:
 * - it differs from the realm's previous request for that node (props ops
 *   sent for other reasons repeat the old value), and
 * - it is not an echo of a value the host itself reported and the realm has
 *   not answered yet (typing "a", "ab" quickly: the late echo "a" must not
 *   undo the "b" and move the caret).
 * Anything else (the realm uppercases, clears after submit, picks a preset)
 * replaces the live value and forgets pending reports.
 */
import type { JsonValue, WireProps } from "./contract";

export type ControlValue = string | number | boolean | Array<string | number>;

/** The prop that carries a control's value, or undefined when `type` is not a control. */
export type ControlKind =
  /** text-like: input, textarea, Input, Textarea → string */
  | "text"
  /** select, Select → string (string[] when `multiple`) */
  | "choice"
  /** checkbox/radio inputs, Checkbox, Switch → boolean */
  | "checked"
  /** Slider → number[] */
  | "range"
  /** Tabs → string (the active tab) */
  | "tabs";

const MAX_PENDING = 64;

export function controlKind(type: string, props: WireProps): ControlKind | undefined {
  switch (type) {
    case "input": {
      const inputType = typeof props.type === "string" ? props.type : "text";
      if (inputType === "checkbox" || inputType === "radio") return "checked";
      if (inputType === "submit" || inputType === "reset" || inputType === "button") return undefined;
      return "text";
    }
    case "Input":
    case "textarea":
    case "Textarea":
      return "text";
    case "select":
    case "Select":
      return "choice";
    case "Checkbox":
    case "Switch":
      return "checked";
    case "Slider":
      return "range";
    case "Tabs":
      return "tabs";
    default:
      return undefined;
  }
}

/** Name of the prop holding the realm's requested value. */
export function valuePropOf(kind: ControlKind): "value" | "checked" {
  return kind === "checked" ? "checked" : "value";
}

function defaultPropOf(kind: ControlKind): "defaultValue" | "defaultChecked" {
  return kind === "checked" ? "defaultChecked" : "defaultValue";
}

/** A prop value as this kind of control holds it, or undefined when unusable. */
export function coerceControlValue(
  kind: ControlKind,
  value: JsonValue | unknown,
  props: WireProps,
): ControlValue | undefined {
  switch (kind) {
    case "checked":
      return typeof value === "boolean" ? value : undefined;
    case "range": {
      const list = Array.isArray(value) ? value : [value];
      if (
        list.length === 0 ||
        list.length > 16 ||
        !list.every((item) => typeof item === "number" && Number.isFinite(item))
      )
        return undefined;
      return list as number[];
    }
    case "choice":
      if (props.multiple === true) {
        return Array.isArray(value) && value.every((item) => typeof item === "string")
          ? (value as string[])
          : undefined;
      }
      return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
    case "text":
    case "tabs":
      if (typeof value === "string") return value;
      if (typeof value === "number" && Number.isFinite(value)) return String(value);
      return value === null ? "" : undefined;
    default: {
      const exhaustive: never = kind;
      return exhaustive;
    }
  }
}

function emptyValue(kind: ControlKind, props: WireProps): ControlValue {
  switch (kind) {
    case "checked":
      return false;
    case "range":
      return [typeof props.min === "number" && Number.isFinite(props.min) ? props.min : 0];
    case "choice":
      return props.multiple === true ? [] : "";
    default:
      return "";
  }
}

export function controlValuesEqual(a: ControlValue | undefined, b: ControlValue | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index]);
  return a === b;
}

/** Host-side state of one control. Mutable, owned by the store. */
export interface ControlState {
  kind: ControlKind;
  live: ControlValue;
  /** The realm's last requested value (undefined: uncontrolled). */
  requested: ControlValue | undefined;
  /** Values reported to the realm and not yet echoed back. */
  pending: ControlValue[];
}

export function createControlState(kind: ControlKind, props: WireProps): ControlState {
  const requested = coerceControlValue(kind, props[valuePropOf(kind)], props);
  const initial = requested ?? coerceControlValue(kind, props[defaultPropOf(kind)], props) ?? emptyValue(kind, props);
  return { kind, live: initial, requested, pending: [] };
}

/**
 * The realm sent new props. Returns true when the live value changed.
 * See the module comment for the rule.
 */
export function applyRequestedValue(state: ControlState, props: WireProps): boolean {
  const requested = coerceControlValue(state.kind, props[valuePropOf(state.kind)], props);
  if (requested === undefined) {
    state.requested = undefined;
    return false;
  }
  if (state.requested !== undefined && controlValuesEqual(requested, state.requested)) return false;
  state.requested = requested;
  const echo = state.pending.findIndex((value) => controlValuesEqual(value, requested));
  if (echo >= 0) {
    state.pending.splice(0, echo + 1);
    return false;
  }
  state.pending = [];
  if (controlValuesEqual(state.live, requested)) return false;
  state.live = requested;
  return true;
}

/** The person changed the control; `reported` when the value goes to the realm. */
export function setLiveValue(state: ControlState, value: ControlValue, reported: boolean): void {
  state.live = value;
  if (!reported) return;
  state.pending.push(value);
  if (state.pending.length > MAX_PENDING) state.pending.splice(0, state.pending.length - MAX_PENDING);
}
