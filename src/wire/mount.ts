/**
 * Mount trees on the wire: what the realm (workers/realm/runtime/ui) sends the
 * host (src/render) about the UIs that model code mounted, and what the host
 * sends back when the person acts on them. Shared by both sides; plain data
 * only. DESIGN.md §3 "Mount trees".
 *
 * Every realm → host mount message is one tag, `mount`, with a `kind`:
 * `open` (MOUNT_OPEN), `open-part`, `ops`, `close`, `error`, `form-errors`,
 * `waiting` (`{type: "mount", kind: "ops", mountId, ops}`).
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
import {
  Invalid,
  array,
  bool,
  capText,
  check,
  custom,
  duration,
  fail,
  failWhole,
  fields,
  int,
  literal,
  name,
  nullable,
  object,
  optional,
  plainRecord,
  put,
  record,
  text,
  variants,
  within,
  type CheckResult,
  type Infer,
  type Key,
  type Schema,
} from "./schema";

// The tags are the keys of the tables below; these names are aliases the
// compiler holds to them (a misspelt one does not type-check).
/** Realm → host: the one mount message; its `kind` is one of the names below. */
export const MOUNT = "mount" satisfies MountRealmMessage["type"];
export const MOUNT_OPEN = "open" satisfies MountKind;
export const MOUNT_OPS = "ops" satisfies MountKind;
/** One part of a first render too big for one message (see "Bounded messages" above). */
export const MOUNT_OPEN_PART = "open-part" satisfies MountKind;
export const MOUNT_CLOSE = "close" satisfies MountKind;
export const MOUNT_ERROR = "error" satisfies MountKind;
export const MOUNT_FORM_ERRORS = "form-errors" satisfies MountKind;
export const MOUNT_WAITING = "waiting" satisfies MountKind;
/** Host → realm: the person acted on a mounted UI. */
export const UI_EVENT = "ui-event" satisfies UiEventMessage["type"];

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

// MountOp, MountRealmMessage, UiEventMessage: declared as schemas below (Infer<>).

/**
 * The component kit: each name is a realm global whose value is the name
 * itself, so `<Card>` reaches the host as type "Card". The host catalog maps
 * exactly these names (plus allowlisted HTML tags and icons).
 */
export const KIT_COMPONENTS = Object.freeze([
  // shadcn/ui
  "Card",
  "CardHeader",
  "CardTitle",
  "CardDescription",
  "CardContent",
  "CardFooter",
  "Button",
  "Input",
  "Textarea",
  "Label",
  "Select",
  "SelectTrigger",
  "SelectValue",
  "SelectContent",
  "SelectItem",
  "Checkbox",
  "Switch",
  "Slider",
  "Badge",
  "Alert",
  "AlertTitle",
  "AlertDescription",
  "Progress",
  "Skeleton",
  "Separator",
  "Tabs",
  "TabsList",
  "TabsTrigger",
  "TabsContent",
  "Table",
  "TableHeader",
  "TableBody",
  "TableRow",
  "TableHead",
  "TableCell",
  "TableCaption",
  // Recharts
  "ResponsiveContainer",
  "LineChart",
  "BarChart",
  "AreaChart",
  "PieChart",
  "Line",
  "Bar",
  "Area",
  "Pie",
  "Cell",
  "XAxis",
  "YAxis",
  "CartesianGrid",
  "Tooltip",
  "Legend",
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
  "Activity",
  "AlertCircle",
  "AlertTriangle",
  "Archive",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "ArrowUp",
  "ArrowUpRight",
  "BarChart3",
  "Bell",
  "Bookmark",
  "Calendar",
  "Camera",
  "Check",
  "CheckCircle",
  "ChevronDown",
  "ChevronLeft",
  "ChevronRight",
  "ChevronUp",
  "Circle",
  "Clock",
  "Cloud",
  "CloudRain",
  "Code",
  "Copy",
  "CreditCard",
  "Database",
  "DollarSign",
  "Download",
  "Edit",
  "Eye",
  "EyeOff",
  "File",
  "FileText",
  "Filter",
  "Flag",
  "Folder",
  "Gift",
  "Globe",
  "Heart",
  "HelpCircle",
  "Home",
  "Image",
  "Info",
  "Key",
  "Layers",
  "LayoutDashboard",
  "Link",
  "Loader2",
  "Lock",
  "LogIn",
  "LogOut",
  "Mail",
  "MapPin",
  "Menu",
  "MessageSquare",
  "Minus",
  "Moon",
  "MoreHorizontal",
  "MoreVertical",
  "Music",
  "Package",
  "Pause",
  "Pencil",
  "Phone",
  "PieChart",
  "Play",
  "Plus",
  "RefreshCw",
  "Save",
  "Search",
  "Send",
  "Settings",
  "Share",
  "ShoppingCart",
  "Sparkles",
  "Star",
  "Sun",
  "Tag",
  "Target",
  "Thermometer",
  "ThumbsDown",
  "ThumbsUp",
  "Trash2",
  "TrendingDown",
  "TrendingUp",
  "Trophy",
  "Upload",
  "User",
  "Users",
  "Wallet",
  "Wind",
  "X",
  "XCircle",
  "Zap",
] as const);

export function isHandlerMarker(value: unknown): value is HandlerMarker {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[HANDLER_MARKER_KEY] === true;
}

// ---------------------------------------------------------------------------
// The mount messages, declared once as schemas (schema.ts): their types are
// inferred, the host's port gate (types.ts) and saved snapshots check with
// them (`validateMountMessage`), the realm checks UI_EVENT with them
// (`validateUiEvent`). Each valid message is rebuilt from scratch with only
// the known fields; anything else is rejected with a reason. Pure.

/** A node type on the wire: "#text" or a component name (`svg:rect`, `Card`, `my-widget`). One pattern for every check. */
export const NODE_TYPE_PATTERN = /^(#text|[A-Za-z][A-Za-z0-9_.:-]*)$/;

const mountIdSchema = name(MAX_MOUNT_ID_LENGTH);
const nodeIdSchema = int(1, Number.MAX_SAFE_INTEGER, "a node id");
const parentIdSchema = int(ROOT_NODE_ID, Number.MAX_SAFE_INTEGER, "a node id");
const nodeTypeSchema = name(MAX_TYPE_LENGTH, NODE_TYPE_PATTERN, "a component name");

/**
 * JSON from the other side, rebuilt. This pass names no path (props come by
 * the thousand per mount batch); when it fails, `jsonAt` runs again to say
 * where.
 */
function json(value: unknown, depth: number): JsonValue {
  if (depth > MAX_PROP_DEPTH) fail("is nested too deeply");
  switch (typeof value) {
    case "string":
      return capText(value);
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "object": {
      if (value === null) return null;
      // map, not a loop: a hole stays a hole.
      if (Array.isArray(value)) return value.map((item) => json(item, depth + 1));
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) fail("is not a plain object");
      const input = value as Record<string, unknown>;
      const output: Record<string, JsonValue> = {};
      for (const entry of Object.keys(input)) put(output, capText(entry), json(input[entry], depth + 1));
      return output;
    }
    default:
      return fail("is not JSON");
  }
}

/** `json`, naming the path of what fails. */
function jsonAt(value: unknown, depth: number, key: Key): JsonValue {
  try {
    return json(value, depth);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
  }
  if (depth > MAX_PROP_DEPTH) fail("is nested too deeply", key);
  if (typeof value !== "object" || value === null) return fail("is not JSON", key);
  try {
    if (Array.isArray(value)) return value.map((item, index) => jsonAt(item, depth + 1, index));
    const input = plainRecord(value);
    const output: Record<string, JsonValue> = {};
    for (const entry of Object.keys(input)) put(output, capText(entry), jsonAt(input[entry], depth + 1, entry));
    return output;
  } catch (error) {
    throw within(error, key);
  }
}

/** Any JSON value: rebuilt, strings capped, non-finite numbers nulled, `__proto__` keys dropped, depth bounded. */
export const jsonSchema: Schema<JsonValue> = custom((value, key) => jsonAt(value, 1, key));

/** Props: JSON values, or handler markers at the top level; never `children`. */
export const wirePropsSchema: Schema<WireProps> = custom((value, key) => {
  const input = plainRecord(value, key);
  const output: WireProps = {};
  try {
    for (const entry of Object.keys(input)) {
      if (entry === "children") fail("is not allowed", entry);
      const item = input[entry];
      put(output, entry, isHandlerMarker(item) ? { $handler: true } : json(item, 1));
    }
  } catch (error) {
    if (!(error instanceof Invalid) || error.path !== "") throw within(error, key);
    // A value failed in the pass that names no path: find it, with its path.
    for (const entry of Object.keys(input))
      if (!isHandlerMarker(input[entry])) checkWithin(() => jsonAt(input[entry], 1, entry), key);
    throw error;
  }
  return output;
});

/** Run `check`; what it throws leaves through `key`. */
function checkWithin(check: () => unknown, key: Key): void {
  try {
    check();
  } catch (error) {
    throw within(error, key);
  }
}

const TEXT = text();

/**
 * One change to a mount's node table (see "Model of a mount" above). Ops
 * come up to MAX_OPS_PER_MESSAGE at a time, on the host's main thread, so
 * this entry is written out by hand (`custom`): a switch and object literals
 * that V8 inlines, ~3× faster than the generic `variants` here.
 */
export const mountOpSchema = custom<
  /** `type`: an HTML tag ("div"), a kit name ("Card"), any other name the host reports as unknown, or "#text" (then `text`, no props). */
  | { op: "create"; id: NodeId; type: string; props?: WireProps; text?: string }
  | { op: "insert"; parent: NodeId; child: NodeId; before?: NodeId }
  | { op: "remove"; parent: NodeId; child: NodeId }
  | { op: "text"; id: NodeId; text: string }
  | { op: "props"; id: NodeId; props: WireProps }
>((value, key) => {
  const input = plainRecord(value, key);
  try {
    switch (input.op) {
      case "create": {
        const id = nodeIdSchema.parse(input.id, "id");
        const type = nodeTypeSchema.parse(input.type, "type");
        if (type === TEXT_NODE_TYPE) return { op: "create", id, type, text: TEXT.parse(input.text, "text") };
        return {
          op: "create",
          id,
          type,
          props: input.props === undefined ? {} : wirePropsSchema.parse(input.props, "props"),
        };
      }
      case "insert": {
        const parent = parentIdSchema.parse(input.parent, "parent");
        const child = nodeIdSchema.parse(input.child, "child");
        if (input.before === undefined) return { op: "insert", parent, child };
        return { op: "insert", parent, child, before: nodeIdSchema.parse(input.before, "before") };
      }
      case "remove":
        return {
          op: "remove",
          parent: parentIdSchema.parse(input.parent, "parent"),
          child: nodeIdSchema.parse(input.child, "child"),
        };
      case "text":
        return { op: "text", id: nodeIdSchema.parse(input.id, "id"), text: TEXT.parse(input.text, "text") };
      case "props":
        return {
          op: "props",
          id: nodeIdSchema.parse(input.id, "id"),
          props: wirePropsSchema.parse(input.props, "props"),
        };
      default:
        return fail("is unknown", "op");
    }
  } catch (error) {
    throw within(error, key);
  }
});
export type MountOp = Infer<typeof mountOpSchema>;

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

function snapshotNodes(
  value: unknown,
  depth: number,
  budget: { nodes: number; max: number },
  key: Key,
): SnapshotNode[] {
  if (!Array.isArray(value)) fail("is not an array", key);
  try {
    return value.map((node, index) => snapshotNode(node, depth, budget, index));
  } catch (error) {
    throw within(error, key);
  }
}

function snapshotNode(value: unknown, depth: number, budget: { nodes: number; max: number }, key: Key): SnapshotNode {
  if (depth > MAX_TREE_DEPTH) fail("is nested too deeply", key);
  if (++budget.nodes > budget.max) failWhole("snapshot has too many nodes");
  const input = plainRecord(value, key);
  try {
    const id = nodeIdSchema.parse(input.id, "id");
    const type = nodeTypeSchema.parse(input.type, "type");
    if (type === TEXT_NODE_TYPE) return { id, type: TEXT_NODE_TYPE, text: TEXT.parse(input.text, "text") };
    const children = snapshotNodes(input.children, depth + 1, budget, "children");
    return { id, type, props: wirePropsSchema.parse(input.props, "props"), children };
  } catch (error) {
    throw within(error, key);
  }
}

/** A whole tree of at most `maxNodes` nodes. */
function snapshotSchema(maxNodes: number): Schema<MountSnapshot> {
  return custom((value, key) => {
    const input = plainRecord(value, key);
    try {
      return { nodes: snapshotNodes(input.nodes, 1, { nodes: 0, max: maxNodes }, "nodes") };
    } catch (error) {
      throw within(error, key);
    }
  });
}

export const mountErrorInfoSchema = object({
  /** `render`: rendering `ui` (or a component inside it) threw; the panel shows the error instead of the tree. */
  code: literal("render"),
  /** The JS error name, e.g. `TypeError`. */
  name: TEXT,
  message: TEXT,
  /** The innermost component that threw, when known. */
  component: optional(TEXT),
  /** 1-based line in the model's source, when known. */
  line: optional(nodeIdSchema),
});
export type MountErrorInfo = Infer<typeof mountErrorInfoSchema>;
export type MountErrorCode = MountErrorInfo["code"];

/**
 * The mount message the realm sends, one entry per `kind`. `maxEntries`: most
 * ops (or snapshot nodes) one message may carry — MAX_OPS_PER_MESSAGE at the
 * port, MAX_NODES_PER_MESSAGE for a saved snapshot.
 */
function mountKinds(maxEntries: number) {
  const snapshot = snapshotSchema(maxEntries);
  const ops = array(mountOpSchema, { max: maxEntries });
  const parts = int(1, MAX_OPEN_PARTS);
  const nodes = int(0, MAX_NODES_PER_MESSAGE);
  return variants("kind", {
    /** `parts` (with `nodes`, the node count the whole tree will have): that many `open-part` follow, and the mount is shown when the last one is applied. */
    open: fields<{ mountId: MountId; title?: string; snapshot: MountSnapshot; parts?: number; nodes?: number }>(
      (input, output) => {
        output.mountId = mountIdSchema.parse(input.mountId, "mountId");
        output.snapshot = snapshot.parse(input.snapshot, "snapshot");
        if (input.title !== undefined) output.title = TEXT.parse(input.title, "title");
        // Both or neither.
        if (input.parts !== undefined || input.nodes !== undefined) {
          output.parts = parts.parse(input.parts, "parts");
          output.nodes = nodes.parse(input.nodes, "nodes");
        }
      },
    ),
    /** Part `index` (0-based) of a first render announced by `open` `parts`. */
    "open-part": { mountId: mountIdSchema, index: int(0, MAX_OPEN_PARTS - 1), ops },
    /** `eventId`: the UI event (UiEventMessage `eventId`) whose handler — or an await or timer it started — made these changes. */
    ops: { mountId: mountIdSchema, ops, eventId: optional(nodeIdSchema) },
    close: { mountId: mountIdSchema },
    /** `error: null` clears a shown error (a later render succeeded). */
    error: { mountId: mountIdSchema, error: nullable(mountErrorInfoSchema) },
    "form-errors": { mountId: mountIdSchema, errors: record(TEXT) },
    /**
     * True while code awaits the mount's `result` (status "Waiting for input").
     * False once a submit was accepted (the form was sent), or with `stopped`
     * when Stop ended the code that awaited it.
     */
    waiting: { mountId: mountIdSchema, waiting: bool(), stopped: optional(bool()) },
  });
}

/** The mount entry of the realm → host table (types.ts), bounded per message for the port. */
export const MOUNT_REALM_ENTRIES = { mount: mountKinds(MAX_OPS_PER_MESSAGE) };
const NOT_MOUNT = "is not a mount message";
const savedMountMessageSchema = variants("type", { mount: mountKinds(MAX_NODES_PER_MESSAGE) }, NOT_MOUNT);
const portMountMessageSchema = variants("type", MOUNT_REALM_ENTRIES, NOT_MOUNT);

/** `{type: "mount", kind, mountId, …}`: one variant per `kind`. */
export type MountRealmMessage = Infer<typeof portMountMessageSchema>;
const portMountKinds = MOUNT_REALM_ENTRIES.mount;

/** True when `kind` names a kind of mount message (validate the message before use). */
export function isMountKind(kind: unknown): kind is MountKind {
  return portMountKinds.has(kind);
}
export type MountKind = MountRealmMessage["kind"];
/** The mount message of one kind (`MountMessageOf<typeof MOUNT_OPEN>`). */
export type MountMessageOf<K extends MountKind> = Extract<MountRealmMessage, { kind: K }>;

export type MountValidationResult<T> = CheckResult<T>;

/** Check a JSON value from the other side (a service payload): rebuilt, capped, `__proto__` keys dropped. */
export function validateJsonValue(value: unknown, where = "value"): MountValidationResult<JsonValue> {
  return check(jsonSchema, value, where);
}

export interface MountValidationOptions {
  /**
   * Most ops (or snapshot nodes) the message may carry. Default
   * MAX_NODES_PER_MESSAGE (saved snapshots, tests); the port passes
   * MAX_OPS_PER_MESSAGE for what the realm sends.
   */
  maxEntries?: number;
}

const mountSchemas = new Map<number, Schema<MountRealmMessage>>([
  [MAX_NODES_PER_MESSAGE, savedMountMessageSchema],
  [MAX_OPS_PER_MESSAGE, portMountMessageSchema],
]);

/** Host side: check one mount message; the result shares nothing with the input. */
export function validateMountMessage(
  value: unknown,
  options: MountValidationOptions = {},
): MountValidationResult<MountRealmMessage> {
  const maxEntries = options.maxEntries ?? MAX_NODES_PER_MESSAGE;
  let schema = mountSchemas.get(maxEntries);
  if (schema === undefined)
    mountSchemas.set(maxEntries, (schema = variants("type", { mount: mountKinds(maxEntries) }, NOT_MOUNT)));
  return check(schema, value);
}

const HANDLER_PATTERN = /^on[A-Z][A-Za-z]{0,62}$/;

export type FormValue = string | number | boolean | null;
export type FormValues = Record<string, FormValue | FormValue[]>;

function formValue(value: unknown, key?: Key): FormValue {
  if (typeof value === "string") return capText(value);
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  return fail("is not a form value", key);
}

const formValueListSchema = array<FormValue>(custom(formValue));
const formValuesSchema = record<FormValue | FormValue[]>(
  custom((value, key) => (Array.isArray(value) ? formValueListSchema.parse(value, key) : formValue(value, key))),
);

/** A chosen file as the realm first sees it (src/wire/capabilities.ts FileHandlePayload). */
export const chosenFileSchema = object({
  handle: name(128),
  name: TEXT,
  size: duration(),
  type: TEXT,
  lastModified: duration(),
});
export type ChosenFile = Infer<typeof chosenFileSchema>;

/**
 * What the realm hands the handler, by handler name:
 * - `onValueChange` → `value`; `onCheckedChange` → `checked` (Radix style);
 * - `onSubmit` → an event with `values`, then the form flow above;
 * - anything else (`onClick`, `onChange`, `onKeyDown`, `onBlur`, …) → an
 *   event-like object `{ type, target: { name?, value?, checked? }, key?,
 *   preventDefault() }`, so `e.target.value` and `e.target.checked` work.
 */
export const uiEventPayloadSchema = object({
  value: optional(jsonSchema),
  checked: optional(bool()),
  /** Key handlers: a named key (Enter, Escape, Tab, arrows, …) or "Unidentified" — never a printable key (src/render/keyForRealm.ts). */
  key: optional(TEXT),
  /** The field's `name`, when it has one. */
  name: optional(TEXT),
  values: optional(formValuesSchema),
  /**
   * A mounted `<input type="file">`: the files the person chose, as handles
   * the realm reads through the FILE_READ host service (capabilities.ts).
   */
  files: optional(array(chosenFileSchema, { max: 100, over: "cut" })),
});
export type UiEventPayload = Infer<typeof uiEventPayloadSchema>;

/** The fields of UI_EVENT (the person acted on a mounted UI), an entry of the host → realm table (types.ts). */
export const UI_EVENT_ENTRY = {
  /**
   * The host's id for this action (unique per page). What the handler causes
   * comes back tagged with it (ExecEvent `cause`), so the host credits it to
   * this action's UI-event turn by identity, not by timing.
   */
  eventId: optional(nodeIdSchema),
  mountId: mountIdSchema,
  nodeId: nodeIdSchema,
  /** The prop name, e.g. "onClick", "onChange", "onValueChange", "onCheckedChange", "onSubmit". */
  handler: name(64, HANDLER_PATTERN, "an event prop name"),
  payload: uiEventPayloadSchema,
} as const;
const uiEventSchema = variants("type", { "ui-event": UI_EVENT_ENTRY }, "is not ui-event");
export type UiEventMessage = Infer<typeof uiEventSchema>;

export type MountHostMessage = UiEventMessage;

/** Realm side: check one UI_EVENT from the host. */
export function validateUiEvent(value: unknown): MountValidationResult<UiEventMessage> {
  return check(uiEventSchema, value);
}
