/**
 * Mount trees on the wire: what the realm (workers/realm/runtime/ui) sends the
 * host (src/render) about the UIs that model code mounted, and what the host
 * sends back when the person acts on them. Shared by both sides; plain data
 * only. DESIGN.md §3 "Mount trees".
 *
 * Model of a mount
 * ----------------
 * A mount is a flat table of nodes with stable numeric ids (per mount, > 0,
 * never reused). `ROOT_NODE_ID` (0) is the mount's root, which is not a node
 * itself. The first render travels as a `MountSnapshot` in MOUNT_OPEN; every
 * later change travels as `MountOp[]` in MOUNT_OPS, at most one batch per
 * mount per frame (~16 ms), applied in order.
 *
 * Bounded messages. One realm message carries at most MAX_OPS_PER_MESSAGE
 * ops (or snapshot nodes): the host deserializes and checks each message in
 * one task, so no message may cost a long one. A bigger batch travels as
 * several MOUNT_OPS in a row. A bigger first render travels in parts: MOUNT_OPEN
 * announces `parts` (1..MAX_OPEN_PARTS) and the `nodes` the tree will hold
 * (its snapshot is then usually empty), and exactly that many MOUNT_OPEN_PART
 * follow at once, `index` 0, 1, 2, …, each with up to MAX_OPS_PER_MESSAGE ops
 * that build the tree on top of the snapshot (as MOUNT_OPS would). The host
 * builds the tree aside and shows it only when the last part is applied;
 * any other message for that mount before then, a part out of order, or more
 * nodes than announced abandon the open (it is never shown). Mount ids (`m1`, `m2`, …) are
 * unique within one realm's life; a fresh realm (reset, revive) starts again
 * at `m1`, so the host qualifies them by realm (`<realm key>:m1`, see
 * src/sandbox/createRealmHost.ts) before anything else sees them. A change
 * of shape here bumps WIRE_VERSION (constants.ts).
 *
 * - `create` introduces a detached node. Ids in an op refer only to nodes
 *   created by an earlier `create` (or the snapshot) and not yet removed.
 * - `insert` attaches `child` under `parent` before `before` (absent: at the
 *   end). If `child` is already a child of `parent`, it moves (DOM
 *   `insertBefore` semantics). The realm never inserts a node that has another
 *   parent.
 * - `remove` detaches `child` from `parent` and destroys it and its whole
 *   subtree: those ids are dead for good.
 * - `text` replaces a text node's text; `props` replaces all of an element's
 *   props.
 *
 * Props
 * -----
 * Props are JSON. `children` is never a prop (children are nodes), nor are
 * `key` and `ref`. A function prop becomes `HANDLER_MARKER` (`{ "$handler":
 * true }`): functions never cross the boundary; when the handler should run,
 * the host sends UI_EVENT with the prop name and a JSON payload, and the realm
 * calls the node's *current* prop. Markers appear only as top-level prop
 * values. Render-time function props (Recharts `tickFormatter`, `formatter`,
 * `label={fn}`, …) also become markers: they cannot run synchronously across
 * the boundary, the host should ignore markers on props it does not treat as
 * events, and the realm reports them to the model once per mount as
 * unsupported. React elements passed as non-children props (`icon={<StarIcon
 * />}`, `content={<MyTooltip />}`) are not supported in this version: the
 * realm drops the prop and reports it to the model. Non-finite numbers become
 * null, Dates become ISO strings, undefined values are omitted. While React
 * Suspense hides a subtree, its elements carry `hidden: true` and its text
 * nodes are empty.
 *
 * Types: "#text", or a name matching /^[A-Za-z][A-Za-z0-9_.:-]*$/ of at most
 * MAX_TYPE_LENGTH characters — an HTML tag, a KIT_COMPONENTS name, an icon
 * (`StarIcon`), or anything else model code wrote (the host renders an inline
 * "unknown component" error and reports it; the realm rewrites names outside
 * the pattern so that they still pass validation).
 *
 * Text: string and number children are `#text` nodes (`TEXT_NODE_TYPE`),
 * never a `text` prop.
 *
 * Forms
 * -----
 * A `form` element's submit is sent as UI_EVENT with handler "onSubmit" on the
 * form node, whether or not it carries a handler marker, and payload
 * `{ values }`: every named field of the form (`name` prop) keyed by its name.
 * Values are strings (text inputs, textareas, selects, radios), booleans
 * (Checkbox, Switch, checkbox inputs — sent checked or not), numbers (Slider;
 * a multi-thumb Slider sends an array) or arrays (several fields sharing one
 * name). Nesting is in the names: `address.city` → `{ address: { city } }`,
 * `tags.0` → `{ tags: [ … ] }` (`a[0]` is read as `a.0`). The realm builds the
 * object, coerces it by the mount's zod `outputSchema` (numeric strings for
 * number fields, "on"/"true" for booleans, "" → absent for optional fields),
 * validates, and answers MOUNT_FORM_ERRORS (keys are the same dotted names;
 * `FORM_ERROR_KEY` holds errors about the whole form). An empty record clears
 * the errors.
 *
 * Everything from the realm is untrusted (model-written code runs there):
 * the host checks each message with `validateMountMessage`, which rebuilds it
 * from scratch. The realm checks host events with `validateUiEvent`.
 */
import { MAX_WIRE_STRING } from "./constants";

// Realm → host.
export const MOUNT_OPEN = "mount-open";
export const MOUNT_OPS = "mount-ops";
/** One part of a first render too big for one message (see "Bounded messages" above). */
export const MOUNT_OPEN_PART = "mount-open-part";
export const MOUNT_CLOSE = "mount-close";
export const MOUNT_ERROR = "mount-error";
export const MOUNT_FORM_ERRORS = "mount-form-errors";
export const MOUNT_WAITING = "mount-waiting";
// Host → realm.
export const UI_EVENT = "ui-event";

/** The mount root: `parent` of top-level nodes. Never a node id. */
export const ROOT_NODE_ID = 0;
export const TEXT_NODE_TYPE = "#text";
export const HANDLER_MARKER_KEY = "$handler";
/** Key in MOUNT_FORM_ERRORS for an error that belongs to no single field. */
export const FORM_ERROR_KEY = "";
/** The minimum time between two MOUNT_OPS of one mount. */
export const MOUNT_FRAME_MS = 16;

/**
 * A mount that commits faster than the page can draw is paused (by the
 * realm's commit limit or the host's inbox): MOUNT_ERROR carries this name
 * and notice, and the host keeps the last tree under the notice.
 */
export const MOUNT_PAUSED_ERROR_NAME = "UpdateLoopError";
export const MOUNT_PAUSED_NOTICE = "this UI updates too fast — paused";
/** Mounts one realm keeps open at once (`mount()` beyond it throws). */
export const MAX_OPEN_MOUNTS = 200;

/** Limits the validators enforce (the realm stays well inside them). */
export const MAX_MOUNT_ID_LENGTH = 64;
export const MAX_TYPE_LENGTH = 64;
export const MAX_PROP_DEPTH = 64;
export const MAX_TREE_DEPTH = 256;
/** Nodes of one snapshot (a saved one; a realm message is bounded by MAX_OPS_PER_MESSAGE). */
export const MAX_NODES_PER_MESSAGE = 100_000;
/**
 * Ops of one realm message, or nodes of a MOUNT_OPEN's snapshot: the host
 * clones and checks one message in one task (~1 ms per 1,000 ops idle).
 */
export const MAX_OPS_PER_MESSAGE = 1_000;
/** MOUNT_OPEN_PART messages of one first render: 100 × 1,000 ops, more than a mount may hold (10,000 nodes). */
export const MAX_OPEN_PARTS = 100;

export type MountId = string;
export type NodeId = number;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export interface HandlerMarker {
  $handler: true;
}
export const HANDLER_MARKER: Readonly<HandlerMarker> = Object.freeze({ $handler: true });
/** Top-level values may be handler markers; nested values are plain JSON. */
export type WireProps = Record<string, JsonValue | HandlerMarker>;

export type MountOp =
  /** `type`: an HTML tag ("div"), a kit name ("Card"), any other name the host reports as unknown, or "#text" (then `text`, no props). */
  | { op: "create"; id: NodeId; type: string; props?: WireProps; text?: string }
  | { op: "insert"; parent: NodeId; child: NodeId; before?: NodeId }
  | { op: "remove"; parent: NodeId; child: NodeId }
  | { op: "text"; id: NodeId; text: string }
  | { op: "props"; id: NodeId; props: WireProps };

export interface SnapshotElement {
  id: NodeId;
  type: string;
  props: WireProps;
  children: SnapshotNode[];
}
export interface SnapshotText {
  id: NodeId;
  type: typeof TEXT_NODE_TYPE;
  text: string;
}
/** Tell the two apart with `isSnapshotText` (`type` alone does not narrow: an element's type is any string). */
export type SnapshotNode = SnapshotElement | SnapshotText;

export function isSnapshotText(node: SnapshotNode): node is SnapshotText {
  return node.type === TEXT_NODE_TYPE;
}

/** A mount's whole tree: the top-level nodes under the root, in order. */
export interface MountSnapshot {
  nodes: SnapshotNode[];
}

export type MountErrorCode =
  /** Rendering `ui` (or a component inside it) threw; the panel shows the error instead of the tree. */
  "render";

export interface MountErrorInfo {
  code: MountErrorCode;
  /** The JS error name, e.g. `TypeError`. */
  name: string;
  message: string;
  /** The innermost component that threw, when known. */
  component?: string;
  /** 1-based line in the model's source, when known. */
  line?: number;
}

export type MountRealmMessage =
  /** `parts` (with `nodes`, the node count the whole tree will have): that many MOUNT_OPEN_PART follow, and the mount is shown when the last one is applied. */
  | { type: typeof MOUNT_OPEN; mountId: MountId; title?: string; snapshot: MountSnapshot; parts?: number; nodes?: number }
  /** Part `index` (0-based) of a first render announced by MOUNT_OPEN `parts`. */
  | { type: typeof MOUNT_OPEN_PART; mountId: MountId; index: number; ops: MountOp[] }
  /** `eventId`: the UI event (UiEventMessage `eventId`) whose handler — or an await or timer it started — made these changes. */
  | { type: typeof MOUNT_OPS; mountId: MountId; ops: MountOp[]; eventId?: number }
  | { type: typeof MOUNT_CLOSE; mountId: MountId }
  /** `error: null` clears a shown error (a later render succeeded). */
  | { type: typeof MOUNT_ERROR; mountId: MountId; error: MountErrorInfo | null }
  | { type: typeof MOUNT_FORM_ERRORS; mountId: MountId; errors: Record<string, string> }
  /** True while code awaits the mount's `result` (status "Waiting for input"). */
  | { type: typeof MOUNT_WAITING; mountId: MountId; waiting: boolean };

export type FormValue = string | number | boolean | null;
export type FormValues = Record<string, FormValue | FormValue[]>;

/**
 * What the realm hands the handler, by handler name:
 * - `onValueChange` → `value`; `onCheckedChange` → `checked` (Radix style);
 * - `onSubmit` → an event with `values`, then the form flow above;
 * - anything else (`onClick`, `onChange`, `onKeyDown`, `onBlur`, …) → an
 *   event-like object `{ type, target: { name?, value?, checked? }, key?,
 *   preventDefault() }`, so `e.target.value` and `e.target.checked` work.
 */
export interface UiEventPayload {
  value?: JsonValue;
  checked?: boolean;
  /** Key handlers: a named key (Enter, Escape, Tab, arrows, …) or "Unidentified" — never a printable key (src/render/keyForRealm.ts). */
  key?: string;
  /** The field's `name`, when it has one. */
  name?: string;
  values?: FormValues;
  /**
   * A mounted `<input type="file">`: the files the person chose, as handles
   * the realm reads through the FILE_READ host service (capabilities.ts).
   */
  files?: ChosenFile[];
}

/** A chosen file as the realm first sees it (src/wire/capabilities.ts FileHandlePayload). */
export interface ChosenFile {
  handle: string;
  name: string;
  size: number;
  type: string;
  lastModified: number;
}

export interface UiEventMessage {
  type: typeof UI_EVENT;
  /**
   * The host's id for this action (unique per page). What the handler causes
   * comes back tagged with it (ExecEvent `cause`), so the host credits it to
   * this action's UI-event turn by identity, not by timing.
   */
  eventId?: number;
  mountId: MountId;
  nodeId: NodeId;
  /** The prop name, e.g. "onClick", "onChange", "onValueChange", "onCheckedChange", "onSubmit". */
  handler: string;
  payload: UiEventPayload;
}

export type MountHostMessage = UiEventMessage;

/**
 * The component kit: each name is a realm global whose value is the name
 * itself, so `<Card>` reaches the host as type "Card". The host catalog maps
 * exactly these names (plus allowlisted HTML tags and icons).
 */
export const KIT_COMPONENTS = Object.freeze([
  // shadcn/ui
  "Card", "CardHeader", "CardTitle", "CardDescription", "CardContent", "CardFooter",
  "Button", "Input", "Textarea", "Label",
  "Select", "SelectTrigger", "SelectValue", "SelectContent", "SelectItem",
  "Checkbox", "Switch", "Slider", "Badge",
  "Alert", "AlertTitle", "AlertDescription",
  "Progress", "Skeleton", "Separator",
  "Tabs", "TabsList", "TabsTrigger", "TabsContent",
  "Table", "TableHeader", "TableBody", "TableRow", "TableHead", "TableCell", "TableCaption",
  // Recharts
  "ResponsiveContainer", "LineChart", "BarChart", "AreaChart", "PieChart",
  "Line", "Bar", "Area", "Pie", "Cell", "XAxis", "YAxis", "CartesianGrid", "Tooltip", "Legend",
  // lucide: <Icon name="Star" />, any lucide icon name
  "Icon",
] as const);
export type KitComponentName = (typeof KIT_COMPONENTS)[number];

/** `<Icon name="…" />` renders any lucide icon by name. */
export const ICON_COMPONENT = "Icon";
/** Names ending in this are icons: `StarIcon` is lucide's `Star`. */
export const ICON_SUFFIX = "Icon";
/**
 * Common lucide icons exposed as realm globals `${name}Icon` (`<StarIcon />`,
 * host type "StarIcon"). Bare names (`Star`, `Map`, `Search`) are not globals:
 * they would collide with the model's own names and with platform globals.
 * The host may render any `<Name>Icon` type whose base is a lucide icon.
 */
export const KIT_ICON_NAMES = Object.freeze([
  "Activity", "AlertCircle", "AlertTriangle", "Archive", "ArrowDown", "ArrowLeft", "ArrowRight", "ArrowUp",
  "ArrowUpRight", "BarChart3", "Bell", "Bookmark", "Calendar", "Camera", "Check", "CheckCircle", "ChevronDown",
  "ChevronLeft", "ChevronRight", "ChevronUp", "Circle", "Clock", "Cloud", "CloudRain", "Code", "Copy", "CreditCard",
  "Database", "DollarSign", "Download", "Edit", "Eye", "EyeOff", "File", "FileText", "Filter", "Flag", "Folder",
  "Gift", "Globe", "Heart", "HelpCircle", "Home", "Image", "Info", "Key", "Layers", "LayoutDashboard", "Link",
  "Loader2", "Lock", "LogIn", "LogOut", "Mail", "MapPin", "Menu", "MessageSquare", "Minus", "Moon",
  "MoreHorizontal", "MoreVertical", "Music", "Package", "Pause", "Pencil", "Phone", "PieChart", "Play", "Plus",
  "RefreshCw", "Save", "Search", "Send", "Settings", "Share", "ShoppingCart", "Sparkles", "Star", "Sun", "Tag",
  "Target", "Thermometer", "ThumbsDown", "ThumbsUp", "Trash2", "TrendingDown", "TrendingUp", "Trophy", "Upload",
  "User", "Users", "Wallet", "Wind", "X", "XCircle", "Zap",
] as const);

export function isHandlerMarker(value: unknown): value is HandlerMarker {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[HANDLER_MARKER_KEY] === true;
}

// ---------------------------------------------------------------------------
// Validators. Each valid message is rebuilt from scratch with only the known
// fields; anything else is rejected with a reason. Pure.

export type MountValidationResult<T> = { ok: true; message: T } | { ok: false; reason: string };

class Invalid extends Error {}

function fail(reason: string): never {
  throw new Invalid(reason);
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`${where} is not an object`);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) fail(`${where} is not a plain object`);
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) fail(`${where} is not an array`);
  return value;
}

/** Strings are capped, not rejected (as in src/sandbox/validateRealmMessage.ts). */
function text(value: unknown, where: string): string {
  if (typeof value !== "string") fail(`${where} is not a string`);
  return value.length <= MAX_WIRE_STRING ? value : value.slice(0, MAX_WIRE_STRING);
}

function shortName(value: unknown, max: number, where: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > max) fail(`${where} is not a short non-empty string`);
  return value;
}

function nodeId(value: unknown, where: string, allowRoot = false): NodeId {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < (allowRoot ? 0 : 1)) fail(`${where} is not a node id`);
  return value;
}

function bool(value: unknown, where: string): boolean {
  if (typeof value !== "boolean") fail(`${where} is not a boolean`);
  return value;
}

/** A node type on the wire: "#text" or a component name (`svg:rect`, `Card`, `my-widget`). One pattern for every check. */
export const NODE_TYPE_PATTERN = /^(#text|[A-Za-z][A-Za-z0-9_.:-]*)$/;
const TYPE_PATTERN = NODE_TYPE_PATTERN;
function nodeType(value: unknown, where: string): string {
  const type = shortName(value, MAX_TYPE_LENGTH, where);
  if (!TYPE_PATTERN.test(type)) fail(`${where} is not a component name`);
  return type;
}

/** Sets a key without ever touching a prototype (`__proto__` is dropped). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") return;
  target[key] = value;
}

function json(value: unknown, where: string, depth: number): JsonValue {
  if (depth > MAX_PROP_DEPTH) fail(`${where} is nested too deeply`);
  switch (typeof value) {
    case "string":
      return text(value, where);
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((item, index) => json(item, `${where}[${index}]`, depth + 1));
      const input = record(value, where);
      const output: Record<string, JsonValue> = {};
      for (const key of Object.keys(input)) put(output, text(key, `${where} key`), json(input[key], `${where}.${key}`, depth + 1));
      return output;
    }
    default:
      return fail(`${where} is not JSON`);
  }
}

function props(value: unknown, where: string): WireProps {
  const input = record(value, where);
  const output: WireProps = {};
  for (const key of Object.keys(input)) {
    if (key === "children") fail(`${where}.children is not allowed`);
    const item = input[key];
    put(output, key, isHandlerMarker(item) ? { $handler: true } : json(item, `${where}.${key}`, 1));
  }
  return output;
}

function mountId(value: unknown, where = "mountId"): MountId {
  return shortName(value, MAX_MOUNT_ID_LENGTH, where);
}

function op(value: unknown, where: string): MountOp {
  const input = record(value, where);
  switch (input.op) {
    case "create": {
      const id = nodeId(input.id, `${where}.id`);
      const type = nodeType(input.type, `${where}.type`);
      if (type === TEXT_NODE_TYPE) return { op: "create", id, type, text: text(input.text, `${where}.text`) };
      return { op: "create", id, type, props: input.props === undefined ? {} : props(input.props, `${where}.props`) };
    }
    case "insert": {
      const result: MountOp = { op: "insert", parent: nodeId(input.parent, `${where}.parent`, true), child: nodeId(input.child, `${where}.child`) };
      if (input.before !== undefined) result.before = nodeId(input.before, `${where}.before`);
      return result;
    }
    case "remove":
      return { op: "remove", parent: nodeId(input.parent, `${where}.parent`, true), child: nodeId(input.child, `${where}.child`) };
    case "text":
      return { op: "text", id: nodeId(input.id, `${where}.id`), text: text(input.text, `${where}.text`) };
    case "props":
      return { op: "props", id: nodeId(input.id, `${where}.id`), props: props(input.props, `${where}.props`) };
    default:
      return fail(`${where}.op is unknown`);
  }
}

function snapshotNode(value: unknown, where: string, depth: number, budget: { nodes: number; max: number }): SnapshotNode {
  if (depth > MAX_TREE_DEPTH) fail(`${where} is nested too deeply`);
  if (++budget.nodes > budget.max) fail("snapshot has too many nodes");
  const input = record(value, where);
  const id = nodeId(input.id, `${where}.id`);
  const type = nodeType(input.type, `${where}.type`);
  if (type === TEXT_NODE_TYPE) return { id, type: TEXT_NODE_TYPE, text: text(input.text, `${where}.text`) };
  const children = list(input.children, `${where}.children`)
    .map((child, index) => snapshotNode(child, `${where}.children[${index}]`, depth + 1, budget));
  return { id, type, props: props(input.props, `${where}.props`), children };
}

function stringRecord(value: unknown, where: string): Record<string, string> {
  const input = record(value, where);
  const output: Record<string, string> = {};
  for (const key of Object.keys(input)) put(output, text(key, `${where} key`), text(input[key], `${where}.${key}`));
  return output;
}

function mountErrorInfo(value: unknown, where: string): MountErrorInfo {
  const input = record(value, where);
  if (input.code !== "render") fail(`${where}.code is unknown`);
  const result: MountErrorInfo = { code: "render", name: text(input.name, `${where}.name`), message: text(input.message, `${where}.message`) };
  if (input.component !== undefined) result.component = text(input.component, `${where}.component`);
  if (input.line !== undefined) result.line = nodeId(input.line, `${where}.line`);
  return result;
}

function count(value: unknown, min: number, max: number, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) fail(`${where} is not an integer in [${min}, ${max}]`);
  return value;
}

function opList(value: unknown, max: number): MountOp[] {
  const ops = list(value, "ops");
  if (ops.length > max) fail("ops has too many entries");
  return ops.map((item, index) => op(item, `ops[${index}]`));
}

function mountMessage(value: unknown, maxEntries: number): MountRealmMessage {
  const input = record(value, "message");
  switch (input.type) {
    case MOUNT_OPEN: {
      const snapshot = record(input.snapshot, "snapshot");
      const budget = { nodes: 0, max: maxEntries };
      const message: MountRealmMessage = {
        type: MOUNT_OPEN,
        mountId: mountId(input.mountId),
        snapshot: { nodes: list(snapshot.nodes, "snapshot.nodes").map((node, index) => snapshotNode(node, `snapshot.nodes[${index}]`, 1, budget)) },
      };
      if (input.title !== undefined) message.title = text(input.title, "title");
      if (input.parts !== undefined || input.nodes !== undefined) {
        message.parts = count(input.parts, 1, MAX_OPEN_PARTS, "parts");
        message.nodes = count(input.nodes, 0, MAX_NODES_PER_MESSAGE, "nodes");
      }
      return message;
    }
    case MOUNT_OPEN_PART:
      return { type: MOUNT_OPEN_PART, mountId: mountId(input.mountId), index: count(input.index, 0, MAX_OPEN_PARTS - 1, "index"), ops: opList(input.ops, maxEntries) };
    case MOUNT_OPS: {
      const message: MountRealmMessage = { type: MOUNT_OPS, mountId: mountId(input.mountId), ops: opList(input.ops, maxEntries) };
      if (input.eventId !== undefined) message.eventId = nodeId(input.eventId, "eventId");
      return message;
    }
    case MOUNT_CLOSE:
      return { type: MOUNT_CLOSE, mountId: mountId(input.mountId) };
    case MOUNT_ERROR:
      return { type: MOUNT_ERROR, mountId: mountId(input.mountId), error: input.error === null ? null : mountErrorInfo(input.error, "error") };
    case MOUNT_FORM_ERRORS:
      return { type: MOUNT_FORM_ERRORS, mountId: mountId(input.mountId), errors: stringRecord(input.errors, "errors") };
    case MOUNT_WAITING:
      return { type: MOUNT_WAITING, mountId: mountId(input.mountId), waiting: bool(input.waiting, "waiting") };
    default:
      return fail("message.type is not a mount message");
  }
}

const MOUNT_MESSAGE_TYPES: ReadonlySet<string> = new Set<MountRealmMessage["type"]>([
  MOUNT_OPEN, MOUNT_OPEN_PART, MOUNT_OPS, MOUNT_CLOSE, MOUNT_ERROR, MOUNT_FORM_ERRORS, MOUNT_WAITING,
]);

/** True when `value` is tagged as a mount message (validate it before use). */
export function isMountMessageType(type: unknown): type is MountRealmMessage["type"] {
  return typeof type === "string" && MOUNT_MESSAGE_TYPES.has(type);
}

function guarded<T>(build: () => T): MountValidationResult<T> {
  try {
    return { ok: true, message: build() };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, reason: error.message };
    // RangeError from a pathological structure, or a bug: reject, never throw.
    return { ok: false, reason: `unreadable message: ${String(error)}` };
  }
}

/** Check a JSON value from the other side (a service payload): rebuilt, capped, `__proto__` keys dropped. */
export function validateJsonValue(value: unknown, where = "value"): MountValidationResult<JsonValue> {
  return guarded(() => json(value, where, 1));
}

export interface MountValidationOptions {
  /**
   * Most ops (or snapshot nodes) the message may carry. Default
   * MAX_NODES_PER_MESSAGE (saved snapshots, tests); the port passes
   * MAX_OPS_PER_MESSAGE for what the realm sends.
   */
  maxEntries?: number;
}

/** Host side: check one mount message; the result shares nothing with the input. */
export function validateMountMessage(value: unknown, options: MountValidationOptions = {}): MountValidationResult<MountRealmMessage> {
  return guarded(() => mountMessage(value, options.maxEntries ?? MAX_NODES_PER_MESSAGE));
}

const HANDLER_PATTERN = /^on[A-Z][A-Za-z]{0,62}$/;

function formValue(value: unknown, where: string): FormValue {
  if (value === null || typeof value === "boolean" || typeof value === "string") return typeof value === "string" ? text(value, where) : value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  return fail(`${where} is not a form value`);
}

function formValues(value: unknown, where: string): FormValues {
  const input = record(value, where);
  const output: FormValues = {};
  for (const key of Object.keys(input)) {
    const item = input[key];
    put(output, text(key, `${where} key`), Array.isArray(item)
      ? item.map((entry, index) => formValue(entry, `${where}.${key}[${index}]`))
      : formValue(item, `${where}.${key}`));
  }
  return output;
}

function uiEvent(value: unknown): UiEventMessage {
  const input = record(value, "message");
  if (input.type !== UI_EVENT) fail("message.type is not ui-event");
  const handler = shortName(input.handler, 64, "handler");
  if (!HANDLER_PATTERN.test(handler)) fail("handler is not an event prop name");
  const payloadInput = record(input.payload, "payload");
  const payload: UiEventPayload = {};
  if (payloadInput.value !== undefined) payload.value = json(payloadInput.value, "payload.value", 1);
  if (payloadInput.checked !== undefined) payload.checked = bool(payloadInput.checked, "payload.checked");
  if (payloadInput.key !== undefined) payload.key = text(payloadInput.key, "payload.key");
  if (payloadInput.name !== undefined) payload.name = text(payloadInput.name, "payload.name");
  if (payloadInput.values !== undefined) payload.values = formValues(payloadInput.values, "payload.values");
  if (payloadInput.files !== undefined) {
    payload.files = list(payloadInput.files, "payload.files").slice(0, 100).map((item, index) => {
      const file = record(item, `payload.files[${index}]`);
      const number = (value: unknown, where: string) => {
        if (typeof value !== "number" || !Number.isFinite(value) || value < 0) fail(`${where} is not a size or time`);
        return value;
      };
      return {
        handle: shortName(file.handle, 128, `payload.files[${index}].handle`),
        name: text(file.name, `payload.files[${index}].name`),
        size: number(file.size, `payload.files[${index}].size`),
        type: text(file.type, `payload.files[${index}].type`),
        lastModified: number(file.lastModified, `payload.files[${index}].lastModified`),
      };
    });
  }
  const message: UiEventMessage = { type: UI_EVENT, mountId: mountId(input.mountId), nodeId: nodeId(input.nodeId, "nodeId"), handler, payload };
  if (input.eventId !== undefined) message.eventId = nodeId(input.eventId, "eventId");
  return message;
}

/** Realm side: check one UI_EVENT from the host. */
export function validateUiEvent(value: unknown): MountValidationResult<UiEventMessage> {
  return guarded(() => uiEvent(value));
}
