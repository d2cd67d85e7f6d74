/**
 * The component kit models already know (shadcn/ui names), as small host
 * components. Styling is kitStyles.ts; a model's `className` is appended so
 * its utilities override the kit's look, as in shadcn.
 *
 * Radix-style widgets are rebuilt on native parts where that keeps them
 * simple and accessible: Select is a native <select> fed by its SelectItem
 * descendants, Slider is native range inputs, Checkbox and Switch are
 * buttons with role=checkbox/switch (as Radix renders them).
 */
import { createContext, createElement, useContext, type KeyboardEvent, type ReactNode } from "react";
import type { UiEventPayload } from "./contract";
import { coerceControlValue, type ControlValue } from "./controls";
import { FieldError, HtmlControl, errorIdOf, errorProps, eventProps, textContent } from "./htmlElements";
import {
  targetPayload,
  useFieldError,
  useInert,
  useMount,
  useSubtreeVersion,
  type NodeComponentProps,
} from "./mountContext";
import type { MountStore } from "./mountStore";

function cx(...parts: unknown[]): string {
  return parts.filter((part) => typeof part === "string" && part !== "").join(" ");
}

/** A plain kit element: a tag, a kit class, data-variant/size, the model's props and events. */
function simple(tag: string, kitClass: string, extra?: (props: Record<string, unknown>) => Record<string, unknown>) {
  return function KitElement({ node, props, handlers, children }: NodeComponentProps): ReactNode {
    const context = useMount();
    const { variant, size, orientation, decorative, ...rest } = props;
    const element: Record<string, unknown> = {
      ...rest,
      ...eventProps(context, node, props, handlers),
      className: cx(kitClass, rest.className),
      ...(variant !== undefined ? { "data-variant": variant } : {}),
      ...(size !== undefined ? { "data-size": size } : {}),
      ...(orientation !== undefined ? { "data-orientation": orientation } : {}),
      ...extra?.(props),
    };
    void decorative;
    return createElement(tag, element, children);
  };
}

export const Card = simple("div", "lmk-card");
export const CardHeader = simple("div", "lmk-card-header");
export const CardTitle = simple("div", "lmk-card-title");
export const CardDescription = simple("div", "lmk-card-description");
export const CardContent = simple("div", "lmk-card-content");
export const CardFooter = simple("div", "lmk-card-footer");
export const Badge = simple("span", "lmk-badge");
export const Alert = simple("div", "lmk-alert", () => ({ role: "alert" }));
export const AlertTitle = simple("div", "lmk-alert-title");
export const AlertDescription = simple("div", "lmk-alert-description");
export const Skeleton = simple("div", "lmk-skeleton");
export const Label = simple("label", "lmk-label");
export const Separator = simple("div", "lmk-separator", (props) =>
  props.decorative === false
    ? { role: "separator", "aria-orientation": props.orientation ?? "horizontal" }
    : { role: "none" },
);
export const TableHeader = simple("thead", "lmk-table-header");
export const TableBody = simple("tbody", "lmk-table-body");
export const TableRow = simple("tr", "lmk-table-row");
export const TableHead = simple("th", "lmk-table-head");
export const TableCell = simple("td", "lmk-table-cell");
export const TableCaption = simple("caption", "lmk-table-caption");

const TableElement = simple("table", "lmk-table");
export function Table(props: NodeComponentProps): ReactNode {
  return (
    <div className="lmk-table-wrap">
      <TableElement {...props} />
    </div>
  );
}

export function Button({ node, props, handlers, children }: NodeComponentProps): ReactNode {
  const context = useMount();
  const inert = useInert();
  const { variant, size, ...rest } = props;
  return createElement(
    "button",
    {
      ...rest,
      ...eventProps(context, node, props, handlers),
      className: cx("lmk-button", rest.className),
      "data-variant": variant ?? "default",
      "data-size": size ?? "default",
      disabled: inert || rest.disabled === true,
    },
    children,
  );
}

export function Input(props: NodeComponentProps): ReactNode {
  return <HtmlControl {...props} className="lmk-input" />;
}

export function Textarea(props: NodeComponentProps): ReactNode {
  return <HtmlControl {...props} className="lmk-input" />;
}

export function Progress({ node, props, handlers }: NodeComponentProps): ReactNode {
  const context = useMount();
  const max = typeof props.max === "number" && props.max > 0 ? props.max : 100;
  const value = typeof props.value === "number" ? Math.min(max, Math.max(0, props.value)) : 0;
  const { value: _value, max: _max, ...rest } = props;
  return (
    <div
      {...rest}
      {...eventProps(context, node, props, handlers)}
      className={cx("lmk-progress", rest.className)}
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
    >
      <div className="lmk-progress-indicator" style={{ width: `${(value / max) * 100}%` }} />
    </div>
  );
}

/** A kit control changed: update the host-owned value, then tell the realm. */
function changeControl(
  context: ReturnType<typeof useMount>,
  nodeId: number,
  value: ControlValue,
  handler: string | undefined,
  payload: UiEventPayload,
): void {
  if (context.inert) return;
  context.store.setControlValue(nodeId, value, handler !== undefined);
  if (handler !== undefined) context.emit(nodeId, handler, payload);
}

function CheckControl({
  node,
  props,
  handlers,
  role,
}: NodeComponentProps & { role: "checkbox" | "switch" }): ReactNode {
  const context = useMount();
  const inert = useInert();
  const error = useFieldError(props.name);
  const checked = node.live === true;
  const { checked: _checked, defaultChecked: _defaultChecked, required, value: _value, name: _name, ...rest } = props;
  const toggle = () => {
    const next = !checked;
    changeControl(context, node.id, next, handlers.onCheckedChange ? "onCheckedChange" : undefined, {
      ...targetPayload(props),
      checked: next,
    });
    if (handlers.onClick && !context.inert)
      context.emit(node.id, "onClick", { ...targetPayload(props), checked: next });
  };
  const control = (
    <button
      {...rest}
      {...eventProps(context, node, props, handlers, CHECK_HANDLERS)}
      {...errorProps(context, node, props, error)}
      type="button"
      role={role}
      aria-checked={checked}
      aria-required={required === true ? true : undefined}
      data-state={checked ? "checked" : "unchecked"}
      className={cx(role === "checkbox" ? "lmk-checkbox" : "lmk-switch", rest.className)}
      disabled={inert || rest.disabled === true}
      onClick={toggle}
    >
      {role === "switch" ? (
        <span className="lmk-switch-thumb" />
      ) : checked ? (
        <svg
          width="12"
          height="12"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
          aria-hidden="true"
        >
          <path d="M20 6 9 17l-5-5" />
        </svg>
      ) : null}
    </button>
  );
  if (error === undefined) return control;
  return (
    <>
      {control}
      <FieldError id={errorIdOf(context, node)} message={error} />
    </>
  );
}

const CHECK_HANDLERS: ReadonlySet<string> = new Set(["onCheckedChange", "onClick"]);

export function Checkbox(props: NodeComponentProps): ReactNode {
  return <CheckControl {...props} role="checkbox" />;
}

export function Switch(props: NodeComponentProps): ReactNode {
  return <CheckControl {...props} role="switch" />;
}

export function Slider({ node, props, handlers }: NodeComponentProps): ReactNode {
  const context = useMount();
  const inert = useInert();
  const error = useFieldError(props.name);
  const values = Array.isArray(node.live) ? (node.live as number[]) : [0];
  const min = typeof props.min === "number" ? props.min : 0;
  const max = typeof props.max === "number" ? props.max : 100;
  const step = typeof props.step === "number" && props.step > 0 ? props.step : 1;
  const disabled = inert || props.disabled === true;
  const commit = () => {
    if (handlers.onValueCommit && !context.inert)
      context.emit(node.id, "onValueCommit", { ...targetPayload(props), value: values });
  };
  return (
    <div
      id={typeof props.id === "string" ? props.id : undefined}
      className={cx("lmk-slider-root", props.className)}
      style={props.style as Record<string, string | number> | undefined}
      data-orientation={props.orientation ?? "horizontal"}
    >
      {values.map((value, index) => (
        <input
          key={index}
          type="range"
          className="lmk-slider"
          min={min}
          max={max}
          step={step}
          value={value}
          disabled={disabled}
          aria-label={typeof props["aria-label"] === "string" ? (props["aria-label"] as string) : undefined}
          {...errorProps(context, node, props, error)}
          onChange={(event) => {
            const next = values.slice();
            next[index] = Number(event.target.value);
            changeControl(context, node.id, next, handlers.onValueChange ? "onValueChange" : undefined, {
              ...targetPayload(props),
              value: next,
            });
          }}
          onPointerUp={commit}
          onKeyUp={(event: KeyboardEvent) => {
            if (
              event.key.startsWith("Arrow") ||
              event.key === "Home" ||
              event.key === "End" ||
              event.key.startsWith("Page")
            )
              commit();
          }}
        />
      ))}
      <FieldError id={errorIdOf(context, node)} message={error} />
    </div>
  );
}

// --- Select ----------------------------------------------------------------

interface SelectParts {
  trigger: Record<string, unknown> | undefined;
  placeholder: string | undefined;
  items: Array<{ value: string; label: string; disabled: boolean }>;
}

function selectParts(store: MountStore, id: number): SelectParts {
  const parts: SelectParts = { trigger: undefined, placeholder: undefined, items: [] };
  const visit = (current: number) => {
    const node = store.getNode(current);
    if (!node) return;
    if (node.type === "SelectTrigger" && parts.trigger === undefined) parts.trigger = node.props;
    if (node.type === "SelectValue" && typeof node.props.placeholder === "string")
      parts.placeholder ??= node.props.placeholder;
    if (node.type === "SelectItem") {
      const value = node.props.value;
      if ((typeof value === "string" || typeof value === "number") && parts.items.length < 1000) {
        parts.items.push({
          value: String(value),
          label: textContent(store, current, 200) || String(value),
          disabled: node.props.disabled === true,
        });
      }
      return;
    }
    node.children.forEach(visit);
  };
  store.getNode(id)?.children.forEach(visit);
  return parts;
}

/**
 * Select: the realm's SelectTrigger/SelectValue/SelectContent/SelectItem
 * tree folds into one native <select>. The trigger's className, id and style
 * dress the <select>, so `<SelectTrigger className="w-40" id="fruit">` and a
 * `<Label htmlFor="fruit">` work as written.
 */
export function Select({ node, props, handlers }: NodeComponentProps): ReactNode {
  const context = useMount();
  const inert = useInert();
  const error = useFieldError(props.name);
  useSubtreeVersion(node.id);
  const parts = selectParts(context.store, node.id);
  const trigger = parts.trigger ?? {};
  const live = typeof node.live === "string" ? node.live : "";
  const triggerId =
    typeof trigger.id === "string" && /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/.test(trigger.id)
      ? context.idPrefix + trigger.id
      : undefined;
  const control = (
    <select
      id={triggerId ?? (typeof props.id === "string" ? props.id : undefined)}
      className={cx(
        "lmk-select",
        typeof trigger.className === "string" ? (trigger.className as string) : undefined,
        props.className,
      )}
      value={live}
      required={props.required === true}
      disabled={inert || props.disabled === true}
      aria-label={typeof trigger["aria-label"] === "string" ? (trigger["aria-label"] as string) : undefined}
      {...errorProps(context, node, props, error)}
      onChange={(event) => {
        const value = event.target.value;
        changeControl(context, node.id, value, handlers.onValueChange ? "onValueChange" : undefined, {
          ...targetPayload(props),
          value,
        });
      }}
    >
      {live === "" || !parts.items.some((item) => item.value === live) ? (
        <option value={live} disabled hidden>
          {parts.placeholder ?? ""}
        </option>
      ) : null}
      {parts.items.map((item) => (
        <option key={item.value} value={item.value} disabled={item.disabled}>
          {item.label}
        </option>
      ))}
    </select>
  );
  if (error === undefined) return control;
  return (
    <>
      {control}
      <FieldError id={errorIdOf(context, node)} message={error} />
    </>
  );
}

/** Parts of a Select render inside it; on their own they render nothing. */
export function SelectPart(): ReactNode {
  return null;
}

// --- Tabs ------------------------------------------------------------------

interface TabsState {
  value: string;
  select(value: string): void;
  baseId: string;
}

const TabsContext = createContext<TabsState | null>(null);

function firstTabValue(store: MountStore, id: number): string {
  const stack = [...(store.getNode(id)?.children ?? [])].reverse();
  while (stack.length > 0) {
    const node = store.getNode(stack.pop()!);
    if (!node) continue;
    if (node.type === "TabsTrigger" && typeof node.props.value === "string") return node.props.value;
    stack.push(...[...node.children].reverse());
  }
  return "";
}

export function Tabs({ node, props, handlers, children }: NodeComponentProps): ReactNode {
  const context = useMount();
  useSubtreeVersion(node.id);
  const live = typeof node.live === "string" && node.live !== "" ? node.live : firstTabValue(context.store, node.id);
  const state: TabsState = {
    value: live,
    baseId: `${context.idPrefix}tabs-${node.id}-`,
    select(value) {
      if (value === live) return;
      const coerced = coerceControlValue("tabs", value, node.props);
      if (coerced === undefined) return;
      changeControl(context, node.id, coerced, handlers.onValueChange ? "onValueChange" : undefined, { value });
    },
  };
  const { value: _value, defaultValue: _defaultValue, orientation, ...rest } = props;
  return (
    <TabsContext.Provider value={state}>
      <div {...rest} className={cx("lmk-tabs", rest.className)} data-orientation={orientation ?? "horizontal"}>
        {children}
      </div>
    </TabsContext.Provider>
  );
}

export const TabsList = simple("div", "lmk-tabs-list", () => ({ role: "tablist" }));

function tabId(state: TabsState, value: string, part: "trigger" | "content"): string {
  return `${state.baseId}${part}-${value.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}`;
}

export function TabsTrigger({ node, props, handlers, children }: NodeComponentProps): ReactNode {
  const context = useMount();
  const state = useContext(TabsContext);
  const value = typeof props.value === "string" ? props.value : "";
  const selected = state?.value === value;
  const { value: _value, ...rest } = props;
  return (
    <button
      {...rest}
      {...eventProps(context, node, props, handlers, CLICK_HANDLER)}
      type="button"
      role="tab"
      id={state ? tabId(state, value, "trigger") : undefined}
      aria-selected={selected}
      aria-controls={state ? tabId(state, value, "content") : undefined}
      data-state={selected ? "active" : "inactive"}
      className={cx("lmk-tabs-trigger", rest.className)}
      disabled={rest.disabled === true}
      onClick={() => {
        state?.select(value);
        if (handlers.onClick) context.emit(node.id, "onClick", {});
      }}
    >
      {children}
    </button>
  );
}

const CLICK_HANDLER: ReadonlySet<string> = new Set(["onClick"]);

export function TabsContent({ node, props, handlers, children }: NodeComponentProps): ReactNode {
  const context = useMount();
  const state = useContext(TabsContext);
  const value = typeof props.value === "string" ? props.value : "";
  if (state && state.value !== value) return null;
  const { value: _value, ...rest } = props;
  return (
    <div
      {...rest}
      {...eventProps(context, node, props, handlers)}
      role="tabpanel"
      id={state ? tabId(state, value, "content") : undefined}
      aria-labelledby={state ? tabId(state, value, "trigger") : undefined}
      className={cx("lmk-tabs-content", rest.className)}
    >
      {children}
    </div>
  );
}
