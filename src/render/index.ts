/**
 * src/render: the host side of generative UI. See README.md.
 */
export { MountView, PANEL_STYLE, idPrefixFor, type MountViewProps } from "./MountView";
export {
  createMountStore,
  fromSnapshot,
  DEFAULT_MOUNT_LIMITS,
  type MountLimits,
  type MountMeta,
  type MountNode,
  type MountSnapshotOptions,
  type MountStore,
  type MountStoreOptions,
} from "./mountStore";
export { createMountInbox, defaultSchedule, PAUSED_NOTICE, type MountInbox, type MountInboxLimits } from "./mountInbox";
export { setSensitiveValues } from "./sensitiveValues";
export { createMountRegistry, type MountRegistry, type MountRegistryOptions } from "./mountRegistry";
export { CATALOG, componentFor } from "./catalog";
export {
  COMPONENT_SPECS,
  specFor,
  iconNameOf,
  type ComponentSpec,
  type HandlerKind,
  type PropRule,
} from "./componentSpecs";
export { sanitizeProps, type SanitizedProps, type DroppedProp, type DropReason } from "./sanitizeProps";
export { sanitizeUrl } from "./sanitizeUrl";
export { FileChooserContext, type FileChooser } from "./fileChooser";
export { RemoteImage, RemoteImagesContext, remoteImageUrl, type RemoteImagePolicy } from "./RemoteImage";
export { sanitizeStyle, sanitizeClassName, sanitizeGeneratedCss, MOUNT_SCOPE_CLASS } from "./sanitizeCss";
export { mountStyleSheet } from "./mountStyleSheet";
export type { RenderError, RenderErrorCode } from "./renderErrors";
export type { UiEvent } from "./contract";
