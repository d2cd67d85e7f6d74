/**
 * Everything generative UI adds to the realm, in one record to merge into
 * the realm's globals, plus the two entry points the worker needs. See
 * README.md in this folder for the surface as model code sees it.
 */
import type { ChosenFile } from "../../../../src/wire/mount";
import * as React from "react";
import { KIT_COMPONENTS, KIT_ICON_NAMES, ICON_SUFFIX, type MountRealmMessage } from "../../../../src/wire/mount";
import { z } from "../zod";
import { createMountRuntime, type MountRuntime, type UiError } from "./createMountRuntime";
import { Data } from "./Data";
import { createFrameScheduler } from "./scheduleFrame";
import { createStreamedDataClass, type DataSink } from "./StreamedData";

export interface UiGlobalsOptions {
  /** Send a mount message to the host (the worker posts it on the port as is). */
  post(message: MountRealmMessage): void;
  /** An error or warning for the model (forward as an exec-style error event; `cause` holds the thrown value). */
  onError(error: UiError): void;
  /** Frame scheduler (default createFrameScheduler(): microtask leading edge, then ≤ 1 frame per 16 ms). */
  schedule?(callback: () => void): void;
  /** Maps a thrown value to the model's source line (the executor's stack mapping). */
  locate?(error: unknown): { line?: number; column?: number } | undefined;
  /** When queued data-fence deltas go to the JSON parser (default: createFrameScheduler(): the first delta after a quiet frame at once, then at most one hand-over per 16 ms). */
  scheduleParse?(wake: () => void): void;
  /** The executor's bindCause: a handler's late rejection keeps its UI event's id. */
  bindCause?<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void;
  /** The executor's currentCause: the UI event a mount change belongs to (MOUNT_OPS `eventId`). */
  currentCause?(): number | undefined;
  /** A file chosen in a mounted file input, as model code reads it (runtime/capabilities/files.ts). */
  files?(chosen: ChosenFile): unknown;
}

export interface UiGlobals {
  /** Merge into the realm's globals. */
  globals: Record<string, unknown>;
  /** Call with each UI_EVENT message from the host; validates it; false when dropped. */
  handleUiEvent(message: unknown): boolean;
  /** For ExecutorOptions.openDataTarget: a sink for a data fence into `id`, undefined when no StreamedData has that id. */
  openDataTarget(id: string): DataSink | undefined;
  /** Unmount every mount (realm shutdown). */
  unmountAll(): void;
  /** Run a frame now (tests; a manual `schedule` calls it otherwise). */
  frame(): void;
  /** The mount whose code is running now (MountRuntime.caller). */
  caller: MountRuntime["caller"];
  onPause: MountRuntime["onPause"];
  reuseMounts: MountRuntime["reuseMounts"];
  stopWaiting: MountRuntime["stopWaiting"];
}

/** Kit component names, then `${Name}Icon` for the common lucide icons: each global is its own name. */
export function componentGlobals(): Record<string, string> {
  const names: Record<string, string> = {};
  for (const name of KIT_COMPONENTS) names[name] = name;
  for (const icon of KIT_ICON_NAMES) names[`${icon}${ICON_SUFFIX}`] = `${icon}${ICON_SUFFIX}`;
  return names;
}

export function createUiGlobals(options: UiGlobalsOptions): UiGlobals {
  const runtime: MountRuntime = createMountRuntime({
    post: options.post,
    onError: options.onError,
    schedule: options.schedule ?? createFrameScheduler(),
    locate: options.locate,
    bindCause: options.bindCause,
    currentCause: options.currentCause,
    files: options.files,
  });
  const { StreamedData, registry } = createStreamedDataClass({
    onDuplicate: (id) =>
      options.onError({
        code: "duplicate-target",
        name: "DuplicateTargetError",
        message: `new StreamedData(${JSON.stringify(id)}): that id already had a StreamedData; data blocks now go to the new one and the old one stops updating`,
      }),
    scheduleWake: options.scheduleParse ?? createFrameScheduler(),
  });

  const globals: Record<string, unknown> = {
    mount: runtime.mount,
    Slot: runtime.Slot,
    Data,
    StreamedData,
    z,
    // `React.useState` too: its setters note the UI event that calls them; effects run as their mount's code.
    React: {
      ...React,
      useState: runtime.useState,
      useReducer: runtime.useReducer,
      useEffect: runtime.useEffect,
      useLayoutEffect: runtime.useLayoutEffect,
    },
    useState: runtime.useState,
    useEffect: runtime.useEffect,
    useMemo: React.useMemo,
    useRef: React.useRef,
    useCallback: React.useCallback,
    useReducer: runtime.useReducer,
    Fragment: React.Fragment,
    ...componentGlobals(),
  };

  return {
    globals,
    handleUiEvent: runtime.handleUiEvent,
    openDataTarget: (id) => registry.open(id),
    unmountAll: runtime.unmountAll,
    frame: runtime.frame,
    caller: runtime.caller,
    onPause: runtime.onPause,
    reuseMounts: runtime.reuseMounts,
    stopWaiting: runtime.stopWaiting,
  };
}
