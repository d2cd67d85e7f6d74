/**
 * The capabilities the app installs, in this order (src/session/createApp.ts):
 * one module each (README.md).
 */
import type { Capability } from "./Capability";
import { files } from "./files";
import { network } from "./network";
import { tools } from "./tools";

export type { AskViewProps, Capability, CapabilityHost, PersonSide } from "./Capability";

export const CAPABILITIES: readonly Capability[] = Object.freeze([network, files, tools]);
