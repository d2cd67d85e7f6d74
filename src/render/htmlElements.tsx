/**
 * Allowlisted HTML and SVG elements, rendered with sanitized props, plus the
 * shared pieces kit components use: event wiring, host-owned controls,
 * field errors.
 */
import { RemoteImage, remoteImageUrl } from "./RemoteImage";
import { FileChooserContext } from "./fileChooser";
import {
  createElement,
  useCallback,
  useContext,
  useEffect,
  useState,
  useSyncExternalStore,
  type ChangeEvent,
  type FocusEvent,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
} from "react";
import { TEXT_NODE_TYPE, type UiEventPayload } from "./contract";
import type { HandlerKind } from "./componentSpecs";
import type { ControlValue } from "./controls";
import {
  targetPayload,
  useFieldError,
  useInert,
  useMount,
  useSubtreeVersion,
  type MountRenderContext,
  type NodeComponentProps,
} from "./mountContext";
import type { MountMeta, MountNode, MountStore } from "./mountStore";
import { keyForRealm } from "./keyForRealm";

const VOID_ELEMENTS = new Set(["br", "hr", "img", "input", "col", "wbr"]);
/** Elements whose children the DOM ignores or React rejects: their text is gathered instead. */
const TEXT_ONLY_ELEMENTS = new Set(["option", "textarea"]);

/**
 * React event props for plain and key handlers. Handlers named in `skip`
 * are wired by the component itself (change, submit, kit callbacks).
 */
export function eventProps(
  context: MountRenderContext,
  node: MountNode,
  props: Record<string, unknown>,
  handlers: Readonly<Record<string, HandlerKind>>,
  skip: ReadonlySet<string> = NO_SKIP,
): Record<string, (event: never) => void> {
  const result: Record<string, (event: never) => void> = {};
  for (const [name, kind] of Object.entries(handlers)) {
    if (skip.has(name)) continue;
    if (kind === "plain") {
      result[name] = () => {
        const payload = targetPayload(props);
        if (typeof props.value === "string" || typeof props.value === "number") payload.value = props.value;
        context.emit(node.id, name, payload);
      };
    } else if (kind === "key") {
      // Named keys only: a printable key would spell out what the person types (keyForRealm.ts).
      result[name] = (event: KeyboardEvent) => {
        context.emit(node.id, name, { ...targetPayload(props), key: keyForRealm(event.key) });
      };
    }
  }
  return result;
}

const NO_SKIP: ReadonlySet<string> = new Set();

/** Text under a node, in order (for <option>, SelectItem labels). */
export function textContent(store: MountStore, id: number, limit = 1000): string {
  let text = "";
  const visit = (current: number) => {
    const node = store.getNode(current);
    if (!node || text.length >= limit) return;
    if (node.type === TEXT_NODE_TYPE) text += node.text;
    else node.children.forEach(visit);
  };
  visit(id);
  return text.slice(0, limit);
}

/** The id of a control's error message element. */
export function errorIdOf(context: MountRenderContext, node: MountNode): string {
  return `${context.idPrefix}error-${node.id}`;
}

export function FieldError({ id, message }: { id: string; message: string | undefined }): ReactNode {
  if (message === undefined) return null;
  return (
    <span className="lmk-field-error" id={id} role="alert">
      {message}
    </span>
  );
}

/** aria props that tie a control to its error message. */
export function errorProps(
  context: MountRenderContext,
  node: MountNode,
  props: Record<string, unknown>,
  error: string | undefined,
): Record<string, unknown> {
  if (error === undefined) return {};
  const described = typeof props["aria-describedby"] === "string" ? `${props["aria-describedby"]} ` : "";
  return { "aria-invalid": true, "aria-describedby": described + errorIdOf(context, node) };
}

export function HtmlElement({ node, props, handlers, children }: NodeComponentProps): ReactNode {
  const context = useMount();
  let tag = node.type;
  const element: Record<string, unknown> = { ...props, ...eventProps(context, node, props, handlers) };
  if (tag === "a" && typeof element.href === "string") {
    element.target = "_blank";
    element.rel = "noopener noreferrer";
    element.referrerPolicy = "no-referrer";
  }
  if (tag === "img") {
    element.referrerPolicy = "no-referrer";
    // A remote src was dropped by the sanitizer: it loads only through the network capability.
    const remote = element.src === undefined ? remoteImageUrl(node.props.src) : null;
    if (remote)
      return (
        <RemoteImage
          url={remote}
          alt={typeof element.alt === "string" ? element.alt : undefined}
          className={typeof element.className === "string" ? element.className : undefined}
        />
      );
  }
  // One main landmark per page: the app's.
  if (tag === "main") tag = "div";
  // Only these draw the mount's inertness: they subscribe to it (a realm reset re-renders them, not every element).
  if (tag === "button" || tag === "fieldset")
    return (
      <InertAware tag={tag} element={element}>
        {children}
      </InertAware>
    );
  if (VOID_ELEMENTS.has(tag)) return createElement(tag, element);
  return createElement(tag, element, children);
}

function InertAware({
  tag,
  element,
  children,
}: {
  tag: string;
  element: Record<string, unknown>;
  children: ReactNode;
}): ReactNode {
  const inert = useInert();
  return createElement(tag, inert ? { ...element, disabled: true } : element, children);
}

/** <option>: React accepts only text children. */
export function HtmlOption({ node, props }: NodeComponentProps): ReactNode {
  const { store } = useMount();
  useSubtreeVersion(node.id);
  return <option {...props}>{textContent(store, node.id)}</option>;
}

function readControlValue(
  node: MountNode,
  event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>,
): ControlValue {
  const target = event.target;
  if (target instanceof HTMLInputElement && (target.type === "checkbox" || target.type === "radio"))
    return target.checked;
  if (target instanceof HTMLSelectElement && target.multiple)
    return Array.from(target.selectedOptions, (option) => option.value);
  return target.value;
}

/** Payload of a change on a native control. */
function changePayload(props: Record<string, unknown>, value: ControlValue): UiEventPayload {
  const payload = targetPayload(props);
  if (typeof value === "boolean") {
    payload.checked = value;
    if (typeof props.value === "string" || typeof props.value === "number") payload.value = props.value;
  } else {
    payload.value = value;
  }
  return payload;
}

/**
 * A host-owned native control (input, textarea, select; and the kit's Input
 * and Textarea via `className`). The DOM shows the store's live value; the
 * realm's value prop reaches it only through the store's echo rule.
 */
export function HtmlControl({
  node,
  props,
  handlers,
  children,
  className,
}: NodeComponentProps & { className?: string }): ReactNode {
  const context = useMount();
  const inert = useInert();
  const error = useFieldError(props.name);
  const tag = node.type === "Input" ? "input" : node.type === "Textarea" ? "textarea" : node.type;
  const live = node.live;
  const reportsChange = handlers.onChange !== undefined || handlers.onInput !== undefined;
  const chooser = useContext(FileChooserContext);
  const isFile = tag === "input" && props.type === "file";
  const onChange = (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => {
    if (context.inert) return;
    if (isFile) {
      // The person's choice is the consent: the realm gets handles, the host keeps the files.
      const input = event.target as HTMLInputElement;
      const files = chooser ? Array.from(input.files ?? [], (file) => chooser.register(file)) : [];
      const payload: UiEventPayload = {
        ...targetPayload(props),
        value: files.map((file) => file.name).join(", "),
        files,
      };
      if (handlers.onChange) context.emit(node.id, "onChange", payload);
      if (handlers.onInput) context.emit(node.id, "onInput", payload);
      return;
    }
    const value = readControlValue(node, event);
    context.store.setControlValue(node.id, value, reportsChange);
    const payload = changePayload(props, value);
    if (handlers.onChange) context.emit(node.id, "onChange", payload);
    if (handlers.onInput) context.emit(node.id, "onInput", payload);
  };
  const {
    value: _value,
    defaultValue: _defaultValue,
    checked: _checked,
    defaultChecked: _defaultChecked,
    ...rest
  } = props;
  const element: Record<string, unknown> = {
    ...rest,
    ...eventProps(context, node, props, handlers, CHANGE_HANDLERS),
    ...errorProps(context, node, props, error),
    onChange,
  };
  if (className !== undefined)
    element.className = typeof rest.className === "string" ? `${className} ${rest.className}` : className;
  if (inert) element.disabled = true;
  const isCheck = tag === "input" && (props.type === "checkbox" || props.type === "radio");
  if (isCheck) element.checked = live === true;
  // A file input's value cannot be set by script (and must not be).
  else if (isFile) delete element.value;
  else if (live !== undefined) element.value = Array.isArray(live) ? live.map(String) : String(live);
  // A field that masks its text looks like a password prompt: MountView warns.
  // The mask may be the type, a style the sanitizer dropped (the intent is
  // the tell), or, should any style still draw discs, what the browser
  // computes when the person starts typing (checked on focus).
  const isTextEntry =
    tag === "textarea" || (tag === "input" && !NON_TEXT_INPUTS.has(String(props.type ?? "text").toLowerCase()));
  const isPassword = tag === "input" && typeof props.type === "string" && props.type.toLowerCase() === "password";
  const [computedMask, setComputedMask] = useState(false);
  const masked = isPassword || (isTextEntry && (asksToMaskText(node.props) || computedMask));
  if (isTextEntry) {
    const onFocus = element.onFocus as ((event: never) => void) | undefined;
    element.onFocus = (event: FocusEvent<HTMLElement>) => {
      setComputedMask(computedStyleMasksText(event.currentTarget));
      onFocus?.(event as never);
    };
  }
  const noteMaskedField = context.noteMaskedField;
  useEffect(() => {
    if (!masked || !noteMaskedField) return;
    noteMaskedField(true);
    return () => noteMaskedField(false);
  }, [masked, noteMaskedField]);
  let control: ReactNode;
  if (tag === "select") control = createElement(tag, element, children);
  else control = createElement(tag, element);
  if (error === undefined) return control;
  return (
    <>
      {control}
      <FieldError id={errorIdOf(context, node)} message={error} />
    </>
  );
}

const CHANGE_HANDLERS: ReadonlySet<string> = new Set(["onChange", "onInput"]);
/** Input types the person does not type text into. */
const NON_TEXT_INPUTS: ReadonlySet<string> = new Set([
  "checkbox",
  "radio",
  "range",
  "color",
  "file",
  "hidden",
  "submit",
  "reset",
  "button",
  "date",
  "time",
  "datetime-local",
  "month",
  "week",
]);

/** Whether a control's own props (before sanitizing) ask for its text to be masked: `text-security` in its style or classes. */
export function asksToMaskText(props: Readonly<Record<string, unknown>>): boolean {
  const style = props.style;
  if (typeof style === "object" && style !== null && Object.keys(style).some((key) => /text-?security/i.test(key)))
    return true;
  return typeof props.className === "string" && /text-security/i.test(props.className);
}

function computedStyleMasksText(element: HTMLElement): boolean {
  const view = element.ownerDocument.defaultView;
  if (!view) return false;
  const style = view.getComputedStyle(element);
  const value = style.getPropertyValue("-webkit-text-security") || style.getPropertyValue("text-security");
  return value !== "" && value !== "none";
}

/** <form>: submit is always prevented and always sent, with every named field's host-owned value. */
export function HtmlForm({ node, props, handlers, children }: NodeComponentProps): ReactNode {
  const context = useMount();
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (context.inert) return;
    context.store.clearFormErrors();
    context.emit(node.id, "onSubmit", { values: context.store.collectFormValues(node.id) });
  };
  // A native reset would change the DOM behind React's back; host-owned
  // values make it meaningless.
  const onReset = (event: FormEvent<HTMLFormElement>) => event.preventDefault();
  const element = { ...props, ...eventProps(context, node, props, handlers, SUBMIT_HANDLERS), onSubmit, onReset };
  const answered = useAnswered(context.store);
  if (!answered) return createElement("form", element, children);
  // Sent, or Stop ended the code that awaited it: the form stays readable, its controls off, and says why.
  return createElement(
    "form",
    { ...element, "data-answered": answered },
    createElement("fieldset", { className: "lmk-form-answered", disabled: true }, children),
    createElement(
      "p",
      { className: "lmk-form-answered__note", role: "note" },
      answered === "sent" ? "Sent" : "Stopped: this form no longer sends",
    ),
  );
}

function useAnswered(store: MountStore): MountMeta["answered"] {
  const subscribe = useCallback((listener: () => void) => store.subscribeMeta(listener), [store]);
  const read = () => store.getMeta().answered;
  return useSyncExternalStore(subscribe, read, read);
}

const SUBMIT_HANDLERS: ReadonlySet<string> = new Set(["onSubmit"]);

export { VOID_ELEMENTS, TEXT_ONLY_ELEMENTS };
