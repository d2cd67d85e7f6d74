/**
 * A form's values as the person sees them (DESIGN.md §3 "partially
 * controlled" inputs): read from the store's live control values, never from
 * the DOM, keyed by each field's `name` (wire format: src/wire/mount.ts
 * "Forms"). Pure over the store's nodes and controls.
 */
import { FORM_ERROR_KEY, TEXT_NODE_TYPE, type FormValue, type FormValues, type WireProps } from "./contract";
import type { ControlState } from "./controls";

/** What the helpers read of a store node. */
export interface FormNode {
  id: number;
  type: string;
  props: WireProps;
  children: readonly number[];
}

/** Every named, enabled field under `formId` (not inside a nested form), by name; several fields of one name make an array. */
export function collectFormValues(
  formId: number,
  nodeOf: (id: number) => FormNode | undefined,
  controlOf: (id: number) => ControlState | undefined,
): FormValues {
  const values: FormValues = {};
  const form = nodeOf(formId);
  if (!form) return values;
  const visit = (id: number, disabled: boolean) => {
    const node = nodeOf(id);
    if (!node || node.type === TEXT_NODE_TYPE) return;
    if (id !== formId && node.type === "form") return;
    const isDisabled = disabled || node.props.disabled === true;
    if (!isDisabled && typeof node.props.name === "string" && node.props.name !== "") {
      const value = liveFieldValue(node, controlOf(node.id));
      if (value !== undefined) addValue(values, node.props.name, value);
    }
    for (const child of node.children) visit(child, isDisabled && node.type === "fieldset" ? true : isDisabled);
  };
  visit(formId, false);
  return values;
}

/** The value a field contributes, from its control's live value; undefined when it contributes none. */
export function liveFieldValue(node: FormNode, control: ControlState | undefined): FormValue | FormValue[] | undefined {
  const props = node.props;
  if (!control) return undefined;
  const live = control.live;
  if (node.type === "input" && props.type === "radio") {
    if (live !== true) return undefined;
    return typeof props.value === "string" || typeof props.value === "number" ? String(props.value) : "on";
  }
  switch (control.kind) {
    case "checked":
      return live === true;
    case "range":
      return Array.isArray(live) ? (live.length === 1 ? (live[0] as number) : (live as number[])) : (live as number);
    case "choice":
      return Array.isArray(live) ? (live as string[]) : String(live);
    case "text":
      return String(live);
    case "tabs":
      return undefined;
    default:
      return undefined;
  }
}

function addValue(values: FormValues, name: string, value: FormValue | FormValue[]): void {
  if (name === "__proto__" || name === FORM_ERROR_KEY) return;
  if (!Object.hasOwn(values, name)) {
    values[name] = value;
    return;
  }
  const existing = values[name];
  const list = Array.isArray(existing) ? existing : [existing];
  values[name] = list.concat(value);
}
