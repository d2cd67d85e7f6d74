/**
 * `tools` in the realm (DESIGN.md §2, §4): the tools of the MCP servers the
 * person connected, as async functions. The host pushes the list (TOOLS) when
 * a server is added or removed and to every new realm; calls go to the host's
 * tool broker (TOOL_CALL), which asks the person and makes the MCP call.
 *
 * ```ts
 * tools.list()                                  // [{ name, server, description, inputSchema, readOnly }]
 * await tools.lookup_film({ title: "Dune" })    // structuredContent when present, else the text
 * await tools["films/lookup_film"]({ ... })     // when two servers share the name
 * ```
 *
 * Invariants:
 * 1. Arguments are checked here, against the tool's input schema (zod's
 *    `z.fromJSONSchema`), before any request leaves: a bad call rejects with
 *    `ToolError` code `invalid-arguments` and the host never hears of it.
 * 2. Arguments cross as JSON (a JSON copy is what is validated and sent).
 * 3. `tools` is a read-only view: assigning, defining or deleting its
 *    properties throws; it holds nothing of the host, only the descriptors
 *    and the realm's own request function.
 */
import type { z } from "zod";
import { loadZod } from "../zod";
import {
  TOOL_CALL,
  type ToolCallPayload,
  type ToolCallResponse,
  type ToolDescriptor,
} from "../../../../src/wire/capabilities";
import type { JsonValue } from "../../../../src/wire/mount";
import { CapabilityError } from "../CapabilityError";
import type { HostRequests } from "../createHostRequests";

export type ToolErrorCode = "invalid-arguments" | "tool-error" | "unavailable" | "failed" | "aborted" | "timeout";

/** A tool call that failed; `code` says how (branch on it, not on the message). */
export class ToolError extends Error {
  override readonly name = "ToolError";
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface RealmTools {
  /** The `tools` global. */
  tools: object;
  /** Replace the list (the host calls TOOLS). */
  set(list: readonly ToolDescriptor[]): void;
}

interface Entry {
  descriptor: ToolDescriptor;
  call: (args?: unknown) => Promise<unknown>;
  schema?: z.ZodType | null;
}

const stringify = JSON.stringify;
const parse = JSON.parse;

/** "title: expected string, received number; year: …" */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message.replace(/^Invalid input: /, "")}`,
    )
    .join("; ");
}

/** "{ title: string, year?: integer }" from an object schema, for error messages. */
export function describeArguments(schema: JsonValue): string {
  const object = schema as { properties?: Record<string, { type?: unknown }>; required?: unknown } | null;
  const properties = object && typeof object === "object" && !Array.isArray(object) ? object.properties : undefined;
  if (!properties || typeof properties !== "object") return "{}";
  const required = Array.isArray(object?.required) ? (object.required as unknown[]) : [];
  const parts = Object.entries(properties).map(([name, property]) => {
    const type = property && typeof property === "object" ? property.type : undefined;
    return `${name}${required.includes(name) ? "" : "?"}: ${Array.isArray(type) ? type.join(" | ") : typeof type === "string" ? type : "any"}`;
  });
  return `{ ${parts.join(", ")} }`;
}

export function createRealmTools(requests: () => HostRequests | undefined): RealmTools {
  let entries = new Map<string, Entry>();
  let listing: ToolDescriptor[] = [];

  const validatorOf = (entry: Entry): z.ZodType | null => {
    if (entry.schema !== undefined) return entry.schema;
    try {
      entry.schema = loadZod().fromJSONSchema(
        entry.descriptor.inputSchema as Parameters<typeof z.fromJSONSchema>[0],
      ) as z.ZodType;
    } catch {
      // A schema zod cannot read: the server still checks; we check only that the arguments are an object.
      entry.schema = null;
    }
    return entry.schema;
  };

  const makeCall = (descriptor: ToolDescriptor): Entry => {
    const label = `tools${/^[A-Za-z_$][\w$]*$/.test(descriptor.name) ? `.${descriptor.name}` : `[${stringify(descriptor.name)}]`}`;
    const entry: Entry = {
      descriptor,
      call: async function call(args?: unknown) {
        let copy: JsonValue;
        try {
          copy = args === undefined ? {} : (parse(stringify(args)) as JsonValue);
        } catch (error) {
          throw new ToolError(
            "invalid-arguments",
            `${label} was not called: its arguments must be JSON (${(error as Error).message})`,
          );
        }
        if (copy === null || typeof copy !== "object" || Array.isArray(copy)) {
          throw new ToolError(
            "invalid-arguments",
            `${label} was not called: pass one object of arguments, ${describeArguments(descriptor.inputSchema)}`,
          );
        }
        const validator = validatorOf(entry);
        if (validator) {
          const result = validator.safeParse(copy);
          if (!result.success) {
            throw new ToolError(
              "invalid-arguments",
              `${label} was not called: ${describeIssues(result.error)}. It takes ${describeArguments(descriptor.inputSchema)}.`,
            );
          }
        }
        const host = requests();
        if (!host) throw new ToolError("unavailable", `${label}: this realm is not connected to the page`);
        const payload: ToolCallPayload = { name: descriptor.name, arguments: copy };
        let answer: ToolCallResponse;
        try {
          // The person may take their time to answer; the host bounds the call itself.
          answer = (await host.request(TOOL_CALL, payload as unknown as JsonValue, {
            timeoutMs: Infinity,
          })) as unknown as ToolCallResponse;
        } catch (error) {
          const { code, message } = error as { code?: string; message?: string };
          switch (code) {
            case "denied":
            case "tools-off":
            case "too-large-to-ask":
              throw CapabilityError.fromHost("tool", code, message ?? `${label} was not allowed`);
            case "tool-error":
              throw new ToolError("tool-error", message ?? `${label} failed`);
            case "unknown-tool":
            case "unknown-service":
              throw new ToolError("unavailable", message ?? `${label} is not connected`);
            case "aborted":
            case "revoked":
              throw new ToolError("aborted", message ?? `${label} was aborted`);
            case "timeout":
              throw new ToolError("timeout", message ?? `${label} took too long`);
            default:
              throw new ToolError("failed", `${label} failed: ${message ?? String(error)}`);
          }
        }
        return answer.structured ?? answer.text;
      },
    };
    return entry;
  };

  const list = function list() {
    return listing.map((descriptor) => ({
      name: descriptor.name,
      server: descriptor.server,
      description: descriptor.description,
      inputSchema: parse(stringify(descriptor.inputSchema)) as JsonValue,
      readOnly: descriptor.readOnly,
    }));
  };

  const has = (key: string | symbol) => key === "list" || (typeof key === "string" && entries.has(key));
  const valueOf = (key: string | symbol): unknown => {
    if (key === "list") return list;
    if (key === Symbol.toStringTag) return "Tools";
    return typeof key === "string" ? entries.get(key)?.call : undefined;
  };
  const refuse = () => {
    throw new TypeError("tools is read-only: its functions are the connected servers' tools (Session settings)");
  };

  const tools = new Proxy(Object.create(null) as object, {
    get: (_target, key) => valueOf(key),
    has: (_target, key) => has(key),
    ownKeys: () => [...entries.keys(), "list"],
    getOwnPropertyDescriptor: (_target, key) =>
      has(key) ? { value: valueOf(key), writable: false, enumerable: key !== "list", configurable: true } : undefined,
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    getPrototypeOf: () => null,
  });

  return {
    tools,
    set(next) {
      const previous = entries;
      entries = new Map();
      listing = [];
      for (const descriptor of next) {
        if (typeof descriptor?.name !== "string" || entries.has(descriptor.name)) continue;
        const old = previous.get(descriptor.name);
        // The same tool keeps its function (and compiled schema) across updates.
        const same = old && stringify(old.descriptor) === stringify(descriptor);
        entries.set(descriptor.name, same ? old : makeCall(descriptor));
        listing.push(descriptor);
      }
    },
  };
}
