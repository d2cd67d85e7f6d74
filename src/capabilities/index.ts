/**
 * The capabilities the app installs, in this order (src/session/createApp.ts):
 * one module each (README.md).
 */
import { ai } from "./ai";
import type { Capability } from "./Capability";
import { files } from "./files";
import { network } from "./network";
import { storage } from "./storage";
import { tools } from "./tools";

export type { AskViewProps, Capability, CapabilityHost, CapabilityPrompt, PersonSide } from "./Capability";

export const CAPABILITIES: readonly Capability[] = Object.freeze([network, files, tools, storage, ai]);
