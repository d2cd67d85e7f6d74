/**
 * What each catalog type accepts: its props (with a rule each) and its
 * handlers (with the payload they send). Pure data; the React side is
 * catalog.tsx, and a test checks the two list the same names.
 *
 * Everything not listed is dropped. The lists are short on purpose: a prop
 * earns its place by being something a model writes for a reason.
 */

/** How a prop value is checked; see sanitizeProps.ts. */
export type PropRule =
  /** string or number, rendered as text; capped. */
  | "text"
  | "number"
  | "boolean"
  /** An element id: namespaced per mount so it cannot clash with (or clobber) the app's ids. */
  | "id"
  /** Space-separated element ids, namespaced like `id`. */
  | "idrefs"
  /** http(s)/mailto only. */
  | "link"
  /** data:/blob: only. */
  | "resource"
  /** string | number | boolean | array of those: a form value (select multiple, slider thumbs). */
  | "value"
  /** Plain JSON rows (chart data): already validated by the receiver; rendered as text only. */
  | "data"
  /** A small config object or scalar (chart `dot`, `tick`, `margin`): deep-filtered like attributes. */
  | "json"
  /** Text for SVG presentation attributes: no url() and no script schemes. */
  | "paint"
  /** Clamped to -1 or 0: positive tab indexes reorder the whole page. */
  | "tabindex"
  | readonly string[];

/**
 * The payload a handler sends (DESIGN.md §3: plain JSON):
 * plain → {}; change → { value } or { checked }; key → { key };
 * submit → { values }; value → { value } from a kit callback; checked → { checked }.
 */
export type HandlerKind = "plain" | "change" | "key" | "submit" | "value" | "checked";

export type ComponentKind = "html" | "svg" | "kit" | "chart" | "icon";

export interface ComponentSpec {
  kind: ComponentKind;
  props: Readonly<Record<string, PropRule>>;
  handlers: Readonly<Record<string, HandlerKind>>;
}

const GLOBAL_PROPS = {
  id: "id",
  title: "text",
  role: "text",
  tabIndex: "tabindex",
  hidden: "boolean",
  dir: ["ltr", "rtl", "auto"],
  lang: "text",
} as const satisfies Record<string, PropRule>;

const POINTER_HANDLERS = {
  onClick: "plain",
  onDoubleClick: "plain",
  onMouseEnter: "plain",
  onMouseLeave: "plain",
  onFocus: "plain",
  onBlur: "plain",
  onKeyDown: "key",
  onKeyUp: "key",
} as const satisfies Record<string, HandlerKind>;

const CONTROL_HANDLERS = { ...POINTER_HANDLERS, onChange: "change", onInput: "change" } as const;

export const INPUT_TYPES = [
  "text",
  "search",
  "email",
  "url",
  "tel",
  "password",
  "number",
  "range",
  "date",
  "time",
  "datetime-local",
  "month",
  "week",
  "color",
  "checkbox",
  "radio",
  "hidden",
  "submit",
  "reset",
  "button",
  // Files in: the person's choice is the consent; the realm gets handles (src/wire/capabilities.ts).
  "file",
] as const;

const INPUT_PROPS = {
  type: INPUT_TYPES,
  name: "text",
  value: "value",
  defaultValue: "value",
  checked: "boolean",
  defaultChecked: "boolean",
  placeholder: "text",
  min: "text",
  max: "text",
  step: "text",
  minLength: "number",
  maxLength: "number",
  pattern: "text",
  required: "boolean",
  readOnly: "boolean",
  disabled: "boolean",
  multiple: "boolean",
  size: "number",
  autoComplete: "text",
  accept: "text",
  inputMode: ["none", "text", "decimal", "numeric", "tel", "search", "email", "url"],
} as const satisfies Record<string, PropRule>;

const TEXTAREA_PROPS = {
  name: "text",
  value: "value",
  defaultValue: "value",
  placeholder: "text",
  rows: "number",
  cols: "number",
  minLength: "number",
  maxLength: "number",
  required: "boolean",
  readOnly: "boolean",
  disabled: "boolean",
  wrap: ["soft", "hard", "off"],
  autoComplete: "text",
} as const satisfies Record<string, PropRule>;

function html(
  props: Record<string, PropRule> = {},
  handlers: Record<string, HandlerKind> = POINTER_HANDLERS,
): ComponentSpec {
  return { kind: "html", props: { ...GLOBAL_PROPS, ...props }, handlers };
}

const PLAIN_ELEMENTS = [
  "div",
  "span",
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "li",
  "strong",
  "em",
  "b",
  "i",
  "u",
  "s",
  "code",
  "pre",
  "blockquote",
  "small",
  "section",
  "article",
  "header",
  "footer",
  "nav",
  "main",
  "aside",
  "figure",
  "figcaption",
  "summary",
  "legend",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "caption",
  "table",
  "mark",
  "kbd",
  "sub",
  "sup",
  "abbr",
  "dl",
  "dt",
  "dd",
  "hr",
  "br",
  "label",
] as const;

const HTML_SPECS: Record<string, ComponentSpec> = {
  ...Object.fromEntries(PLAIN_ELEMENTS.map((tag) => [tag, html()])),
  ol: html({ start: "number", reversed: "boolean", type: ["1", "a", "A", "i", "I"] }),
  li: html({ value: "number" }),
  a: html({ href: "link", hrefLang: "text" }),
  img: html({
    src: "resource",
    alt: "text",
    width: "text",
    height: "text",
    loading: ["lazy", "eager"],
    decoding: ["sync", "async", "auto"],
  }),
  button: html({ type: ["button", "submit", "reset"], disabled: "boolean", name: "text", value: "text" }),
  input: html(INPUT_PROPS, CONTROL_HANDLERS),
  textarea: html(TEXTAREA_PROPS, CONTROL_HANDLERS),
  select: html(
    {
      name: "text",
      value: "value",
      defaultValue: "value",
      multiple: "boolean",
      disabled: "boolean",
      required: "boolean",
      size: "number",
    },
    CONTROL_HANDLERS,
  ),
  option: html({ value: "text", disabled: "boolean", label: "text" }),
  optgroup: html({ label: "text", disabled: "boolean" }),
  label: html({ htmlFor: "idrefs" }),
  form: html({ noValidate: "boolean" }, { ...POINTER_HANDLERS, onSubmit: "submit" }),
  fieldset: html({ disabled: "boolean", name: "text" }),
  td: html({ colSpan: "number", rowSpan: "number", headers: "idrefs" }),
  th: html({
    colSpan: "number",
    rowSpan: "number",
    headers: "idrefs",
    scope: ["row", "col", "rowgroup", "colgroup"],
    abbr: "text",
  }),
  details: html({ open: "boolean" }),
  time: html({ dateTime: "text" }),
};

// A small drawing subset: shapes and text. No <use>, <image>, <foreignObject>,
// <a>, <animate>/<set> (they can rewrite href), filters or gradients (url refs).
const SVG_PRESENTATION = {
  fill: "paint",
  stroke: "paint",
  strokeWidth: "paint",
  strokeLinecap: "paint",
  strokeLinejoin: "paint",
  strokeDasharray: "paint",
  strokeOpacity: "paint",
  fillOpacity: "paint",
  fillRule: "paint",
  clipRule: "paint",
  opacity: "paint",
  transform: "paint",
  fontSize: "paint",
  fontWeight: "paint",
  fontFamily: "paint",
  textAnchor: "paint",
  dominantBaseline: "paint",
  vectorEffect: "paint",
} as const satisfies Record<string, PropRule>;

function svg(props: Record<string, PropRule> = {}): ComponentSpec {
  return { kind: "svg", props: { ...GLOBAL_PROPS, ...SVG_PRESENTATION, ...props }, handlers: POINTER_HANDLERS };
}

const SVG_SPECS: Record<string, ComponentSpec> = {
  svg: svg({ viewBox: "paint", width: "paint", height: "paint", preserveAspectRatio: "paint" }),
  g: svg(),
  path: svg({ d: "paint", pathLength: "number" }),
  circle: svg({ cx: "paint", cy: "paint", r: "paint" }),
  ellipse: svg({ cx: "paint", cy: "paint", rx: "paint", ry: "paint" }),
  rect: svg({ x: "paint", y: "paint", width: "paint", height: "paint", rx: "paint", ry: "paint" }),
  line: svg({ x1: "paint", y1: "paint", x2: "paint", y2: "paint" }),
  polyline: svg({ points: "paint" }),
  polygon: svg({ points: "paint" }),
  text: svg({ x: "paint", y: "paint", dx: "paint", dy: "paint" }),
  tspan: svg({ x: "paint", y: "paint", dx: "paint", dy: "paint" }),
};

function kit(
  props: Record<string, PropRule> = {},
  handlers: Record<string, HandlerKind> = POINTER_HANDLERS,
): ComponentSpec {
  return { kind: "kit", props: { ...GLOBAL_PROPS, ...props }, handlers };
}

const KIT_SPECS: Record<string, ComponentSpec> = {
  Card: kit(),
  CardHeader: kit(),
  CardTitle: kit(),
  CardDescription: kit(),
  CardContent: kit(),
  CardFooter: kit(),
  Button: kit({
    variant: ["default", "destructive", "outline", "secondary", "ghost", "link"],
    size: ["default", "sm", "lg", "icon"],
    type: ["button", "submit", "reset"],
    disabled: "boolean",
    name: "text",
    value: "text",
  }),
  Input: kit(INPUT_PROPS, CONTROL_HANDLERS),
  Textarea: kit(TEXTAREA_PROPS, CONTROL_HANDLERS),
  Label: kit({ htmlFor: "idrefs" }),
  Select: kit(
    { value: "value", defaultValue: "value", name: "text", disabled: "boolean", required: "boolean" },
    { onValueChange: "value", onOpenChange: "checked" },
  ),
  SelectTrigger: kit(),
  SelectValue: kit({ placeholder: "text" }),
  SelectContent: kit(),
  SelectItem: kit({ value: "text", disabled: "boolean" }),
  Checkbox: kit(
    {
      checked: "boolean",
      defaultChecked: "boolean",
      name: "text",
      value: "text",
      disabled: "boolean",
      required: "boolean",
    },
    { onCheckedChange: "checked", onClick: "plain", onFocus: "plain", onBlur: "plain" },
  ),
  Switch: kit(
    {
      checked: "boolean",
      defaultChecked: "boolean",
      name: "text",
      value: "text",
      disabled: "boolean",
      required: "boolean",
    },
    { onCheckedChange: "checked", onClick: "plain", onFocus: "plain", onBlur: "plain" },
  ),
  Slider: kit(
    {
      value: "value",
      defaultValue: "value",
      min: "number",
      max: "number",
      step: "number",
      name: "text",
      disabled: "boolean",
      orientation: ["horizontal", "vertical"],
    },
    { onValueChange: "value", onValueCommit: "value" },
  ),
  Badge: kit({ variant: ["default", "secondary", "destructive", "outline"] }),
  Alert: kit({ variant: ["default", "destructive"] }),
  AlertTitle: kit(),
  AlertDescription: kit(),
  Progress: kit({ value: "number", max: "number" }),
  Skeleton: kit(),
  Separator: kit({ orientation: ["horizontal", "vertical"], decorative: "boolean" }),
  Tabs: kit(
    { value: "text", defaultValue: "text", orientation: ["horizontal", "vertical"] },
    { onValueChange: "value" },
  ),
  TabsList: kit(),
  TabsTrigger: kit({ value: "text", disabled: "boolean" }),
  TabsContent: kit({ value: "text" }),
  Table: kit(),
  TableHeader: kit(),
  TableBody: kit(),
  TableRow: kit(),
  TableHead: kit({ colSpan: "number", rowSpan: "number" }),
  TableCell: kit({ colSpan: "number", rowSpan: "number" }),
  TableCaption: kit(),
};

const ICON_PROPS = {
  name: "text",
  size: "paint",
  color: "paint",
  strokeWidth: "paint",
  absoluteStrokeWidth: "boolean",
} as const;
const ICON_SPEC: ComponentSpec = {
  kind: "icon",
  props: { ...GLOBAL_PROPS, ...ICON_PROPS },
  handlers: POINTER_HANDLERS,
};

function chart(props: Record<string, PropRule>, handlers: Record<string, HandlerKind> = {}): ComponentSpec {
  return { kind: "chart", props: { id: "id", ...props }, handlers };
}

const SERIES_PROPS = {
  dataKey: "text",
  name: "text",
  type: "text",
  stroke: "paint",
  fill: "paint",
  strokeWidth: "number",
  strokeDasharray: "paint",
  fillOpacity: "number",
  stackId: "text",
  dot: "json",
  activeDot: "json",
  isAnimationActive: "boolean",
  connectNulls: "boolean",
  radius: "json",
  barSize: "number",
  unit: "text",
  legendType: "text",
  hide: "boolean",
  label: "json",
  yAxisId: "text",
  xAxisId: "text",
  maxBarSize: "number",
} as const satisfies Record<string, PropRule>;

const AXIS_PROPS = {
  dataKey: "text",
  type: ["number", "category"],
  hide: "boolean",
  unit: "text",
  name: "text",
  tickLine: "json",
  axisLine: "json",
  tickMargin: "number",
  tick: "json",
  interval: "json",
  domain: "json",
  allowDecimals: "boolean",
  orientation: ["left", "right", "top", "bottom"],
  width: "number",
  height: "number",
  angle: "number",
  reversed: "boolean",
  yAxisId: "text",
  xAxisId: "text",
  padding: "json",
  minTickGap: "number",
  label: "json",
  stroke: "paint",
  fontSize: "number",
  scale: "text",
  ticks: "json",
  tickCount: "number",
} as const satisfies Record<string, PropRule>;

const CHART_CONTAINER_PROPS = {
  data: "data",
  width: "number",
  height: "number",
  margin: "json",
  layout: ["horizontal", "vertical"],
  barGap: "json",
  barCategoryGap: "json",
  stackOffset: "text",
  syncId: "text",
  className: "text",
  innerRadius: "json",
  outerRadius: "json",
  accessibilityLayer: "boolean",
} as const satisfies Record<string, PropRule>;

const CHART_SPECS: Record<string, ComponentSpec> = {
  ResponsiveContainer: chart({
    width: "json",
    height: "json",
    minHeight: "number",
    minWidth: "number",
    aspect: "number",
    maxHeight: "number",
  }),
  LineChart: chart(CHART_CONTAINER_PROPS),
  BarChart: chart(CHART_CONTAINER_PROPS),
  AreaChart: chart(CHART_CONTAINER_PROPS),
  PieChart: chart(CHART_CONTAINER_PROPS),
  Line: chart(SERIES_PROPS, { onClick: "value" }),
  Bar: chart(SERIES_PROPS, { onClick: "value" }),
  Area: chart(SERIES_PROPS, { onClick: "value" }),
  Pie: chart(
    {
      ...SERIES_PROPS,
      data: "data",
      nameKey: "text",
      cx: "json",
      cy: "json",
      innerRadius: "json",
      outerRadius: "json",
      paddingAngle: "number",
      startAngle: "number",
      endAngle: "number",
      cornerRadius: "number",
      labelLine: "json",
    },
    { onClick: "value" },
  ),
  Cell: chart({ fill: "paint", stroke: "paint", strokeWidth: "number", name: "text" }),
  XAxis: chart(AXIS_PROPS),
  YAxis: chart(AXIS_PROPS),
  CartesianGrid: chart({
    strokeDasharray: "paint",
    vertical: "boolean",
    horizontal: "boolean",
    stroke: "paint",
    fill: "paint",
  }),
  Tooltip: chart({ cursor: "json", separator: "text", unit: "text", isAnimationActive: "boolean", offset: "number" }),
  Legend: chart({
    verticalAlign: ["top", "middle", "bottom"],
    align: ["left", "center", "right"],
    layout: ["horizontal", "vertical"],
    iconType: "text",
    iconSize: "number",
    height: "number",
  }),
};

/** Every type the host renders, by the name the realm sends. Frozen. */
export const COMPONENT_SPECS: Readonly<Record<string, ComponentSpec>> = Object.freeze({
  ...HTML_SPECS,
  ...SVG_SPECS,
  ...KIT_SPECS,
  ...CHART_SPECS,
  Icon: ICON_SPEC,
});

/** Lucide icons by component name (src/wire/mount.ts): `StarIcon` is lucide's `Star`; `<Icon name="Star" />` too. */
const ICON_COMPONENT_NAME = /^([A-Z][A-Za-z0-9]*)Icon$/;

/** The lucide name inside an icon type (`StarIcon` → `Star`), else undefined. */
export function iconNameOf(type: string): string | undefined {
  return ICON_COMPONENT_NAME.exec(type)?.[1];
}

/** The spec for a type, icons by name included; undefined for unknown types. */
export function specFor(type: string): ComponentSpec | undefined {
  if (Object.hasOwn(COMPONENT_SPECS, type)) return COMPONENT_SPECS[type];
  if (iconNameOf(type) !== undefined) return ICON_SPEC;
  return undefined;
}
