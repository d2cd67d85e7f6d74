/**
 * The host's gate for everything the realm sends. The realm runs
 * model-written code, so a message may be anything structured clone can carry:
 * wrong types, extra fields, Maps, huge strings, cycles. Each valid message is
 * rebuilt from scratch with only the known fields (nothing of the original
 * object reaches the app); anything else is rejected with a reason.
 *
 * Pure: no I/O, no state.
 */
import { EXEC_ERROR_CODES, type ConsoleLevel, type ExecError, type ExecEvent } from "../wire/events";
import {
  ABORTED, EXEC_EVENT, FLUSHED, HEARTBEAT, MAX_WIRE_STRING, READY, SERVICE_CANCEL, SERVICE_NAME_PATTERN, SERVICE_REQUEST,
} from "../wire/constants";
import { MAX_OPS_PER_MESSAGE, isMountMessageType, validateJsonValue, validateMountMessage } from "../wire/mount";
import type { MountRealmMessage } from "../wire/mount";
import type { RealmMessage } from "../wire/types";

export type ValidationResult =
  | { ok: true; message: RealmMessage }
  | { ok: false; reason: string };

// `satisfies` keeps these in step with the types in src/wire/events.ts.
const CONSOLE_LEVELS = { debug: true, log: true, info: true, warn: true, error: true } satisfies Record<ConsoleLevel, true>;
const EVENT_TYPES = {
  "statement-start": true, "statement-end": true, console: true, skipped: true, error: true, "block-done": true,
} satisfies Record<ExecEvent["type"], true>;

/** Thrown inside the guards only; turned into `{ ok: false }` at the top. */
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

function count(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) fail(`${where} is not a non-negative integer`);
  return value;
}

function duration(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) fail(`${where} is not a duration`);
  return value;
}

/** Strings are capped, not rejected: a long console line is legitimate output. */
function text(value: unknown, where: string): string {
  if (typeof value !== "string") fail(`${where} is not a string`);
  if (value.length <= MAX_WIRE_STRING) return value;
  return `${value.slice(0, MAX_WIRE_STRING)}… [${value.length - MAX_WIRE_STRING} more characters dropped by the host]`;
}

function oneOf<T extends string>(value: unknown, allowed: Record<T, true>, where: string): T {
  if (typeof value !== "string" || !Object.hasOwn(allowed, value)) fail(`${where} has an unknown value`);
  return value as T;
}

function optional<T>(value: unknown, guard: (value: unknown, where: string) => T, where: string): T | undefined {
  return value === undefined ? undefined : guard(value, where);
}

/** Drop keys whose value is undefined so rebuilt objects compare cleanly. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

export function validateExecError(value: unknown, where = "error"): ExecError {
  const input = record(value, where);
  return compact({
    code: oneOf(input.code, EXEC_ERROR_CODES, `${where}.code`),
    name: text(input.name, `${where}.name`),
    message: text(input.message, `${where}.message`),
    block: count(input.block, `${where}.block`),
    line: optional(input.line, count, `${where}.line`),
    column: optional(input.column, count, `${where}.column`),
    lineText: optional(input.lineText, text, `${where}.lineText`),
  });
}

export function validateExecEvent(value: unknown, where = "event"): ExecEvent {
  const input = record(value, where);
  const type = oneOf(input.type, EVENT_TYPES, `${where}.type`);
  switch (type) {
    case "statement-start":
      return {
        type,
        block: count(input.block, `${where}.block`),
        statement: count(input.statement, `${where}.statement`),
        line: count(input.line, `${where}.line`),
        endLine: count(input.endLine, `${where}.endLine`),
        source: text(input.source, `${where}.source`),
      };
    case "statement-end": {
      const status = oneOf(input.status, { done: true, error: true }, `${where}.status`);
      return compact({
        type,
        block: count(input.block, `${where}.block`),
        statement: count(input.statement, `${where}.statement`),
        status,
        error: optional(input.error, validateExecError, `${where}.error`),
        durationMs: duration(input.durationMs, `${where}.durationMs`),
      });
    }
    case "console":
      return compact({
        type,
        block: count(input.block, `${where}.block`),
        statement: count(input.statement, `${where}.statement`),
        level: oneOf(input.level, CONSOLE_LEVELS, `${where}.level`),
        text: text(input.text, `${where}.text`),
        reply: optional(input.reply, count, `${where}.reply`),
        cause: optional(input.cause, count, `${where}.cause`),
        omitted: optional(input.omitted, count, `${where}.omitted`),
      });
    case "skipped":
      return {
        type,
        block: count(input.block, `${where}.block`),
        fromStatement: count(input.fromStatement, `${where}.fromStatement`),
        count: count(input.count, `${where}.count`),
        fromLine: count(input.fromLine, `${where}.fromLine`),
        reason: oneOf(input.reason, { error: true, aborted: true }, `${where}.reason`),
      };
    case "error":
      return compact({
        type,
        error: validateExecError(input.error, `${where}.error`),
        statement: optional(input.statement, count, `${where}.statement`),
        reply: optional(input.reply, count, `${where}.reply`),
        cause: optional(input.cause, count, `${where}.cause`),
      });
    case "block-done":
      return { type, block: count(input.block, `${where}.block`) };
    default:
      return type satisfies never;
  }
}

type SandboxMessageType = Exclude<RealmMessage, MountRealmMessage>["type"];
const MESSAGE_TYPES = {
  [READY]: true, [HEARTBEAT]: true, [EXEC_EVENT]: true, [FLUSHED]: true, [ABORTED]: true,
  [SERVICE_REQUEST]: true, [SERVICE_CANCEL]: true,
} satisfies Record<SandboxMessageType, true>;

function realmMessage(value: unknown): RealmMessage {
  const input = record(value, "message");
  // Mount trees have their own contract and validator (src/wire/mount.ts).
  // One message is cloned and checked in one task: the realm sends at most
  // MAX_OPS_PER_MESSAGE ops (or snapshot nodes) per message, a bigger first
  // render in parts; a bigger message is rejected whole.
  if (isMountMessageType(input.type)) {
    const mount = validateMountMessage(value, { maxEntries: MAX_OPS_PER_MESSAGE });
    if (!mount.ok) fail(mount.reason);
    return mount.message;
  }
  const type = oneOf(input.type, MESSAGE_TYPES, "message.type");
  switch (type) {
    case READY:
      return {
        type,
        version: count(input.version, "version"),
        loadMs: duration(input.loadMs, "loadMs"),
        warmupMs: duration(input.warmupMs, "warmupMs"),
      };
    case HEARTBEAT:
      return { type, seq: count(input.seq, "seq") };
    case EXEC_EVENT:
      return { type, event: validateExecEvent(input.event) };
    case FLUSHED:
    case ABORTED:
    case SERVICE_CANCEL:
      return { type, id: count(input.id, "id") };
    case SERVICE_REQUEST: {
      const service = input.service;
      if (typeof service !== "string" || !SERVICE_NAME_PATTERN.test(service)) fail("service is not a service name");
      const payload = validateJsonValue(input.payload, "payload");
      if (!payload.ok) fail(payload.reason);
      const timeoutMs = input.timeoutMs === null ? null : duration(input.timeoutMs, "timeoutMs");
      return { type, id: count(input.id, "id"), service, payload: payload.message, timeoutMs };
    }
    default:
      return type satisfies never;
  }
}

/** Check one message from the realm; on success the result shares nothing with the input. */
export function validateRealmMessage(value: unknown): ValidationResult {
  try {
    return { ok: true, message: realmMessage(value) };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, reason: error.message };
    // Getters cannot exist on structured-clone output, but a bug must not
    // take the host down either.
    return { ok: false, reason: `unreadable message: ${String(error)}` };
  }
}
