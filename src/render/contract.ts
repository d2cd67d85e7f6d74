/**
 * The mount-tree contract as the renderer uses it: everything comes from
 * src/wire/mount.ts (the only code shared with the realm); this file names
 * the few aliases src/render speaks in.
 */
export {
  FORM_ERROR_KEY,
  HANDLER_MARKER_KEY,
  ICON_COMPONENT,
  ICON_SUFFIX,
  KIT_COMPONENTS,
  KIT_ICON_NAMES,
  MAX_TREE_DEPTH,
  MAX_TYPE_LENGTH,
  MOUNT_CLOSE,
  MOUNT_ERROR,
  MOUNT_FORM_ERRORS,
  MOUNT_OPEN,
  MOUNT_OPS,
  MOUNT_PAUSED_ERROR_NAME,
  MOUNT_PAUSED_NOTICE,
  MAX_OPEN_MOUNTS,
  MOUNT_WAITING,
  MOUNT,
  NODE_TYPE_PATTERN,
  ROOT_NODE_ID,
  TEXT_NODE_TYPE,
  UI_EVENT,
  isHandlerMarker,
  validateMountMessage,
} from "../wire/mount";
export type {
  FormValue,
  FormValues,
  HandlerMarker,
  JsonValue,
  MountErrorInfo,
  MountId,
  MountKind,
  MountMessageOf,
  MountOp,
  MountRealmMessage,
  MountSnapshot,
  NodeId,
  SnapshotNode,
  UiEventMessage,
  UiEventPayload,
  WireProps,
} from "../wire/mount";

import type { UiEventMessage } from "../wire/mount";

/** A ui-event without its tag: what MountView hands to `sendEvent`. */
export type UiEvent = Omit<UiEventMessage, "type">;
