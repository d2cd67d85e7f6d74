import type { ChatMessage } from "../../agent/types";
import { findAttachment, type Attachment } from "../../agent/attachments";
import type { FileChooser } from "../../render/fileChooser";
import { HostServiceError } from "../../sandbox/HostServiceError";
import type { HostService } from "../../sandbox/types";
import type { JsonValue } from "../../wire/mount";

/**
 * FILE_ATTACHMENT: `attachment(name)` in the realm. Only files the person
 * attached to a message of the open session are handed over (attaching is
 * the consent), registered like a file chosen in a mounted input (handle,
 * audit "chosen", read with FILE_READ, untrusted when read).
 */
export function createAttachmentService(options: {
  messages: () => readonly ChatMessage[];
  chooser: FileChooser;
}): HostService {
  return (payload) => {
    const name = (payload as { name?: unknown } | null)?.name;
    if (typeof name !== "string") throw new HostServiceError("invalid", "attachment(name): name must be a string");
    const messages = options.messages();
    const found = findAttachment(messages, name);
    if (!found) {
      const names = messages
        .flatMap((message) => (message.role === "user" ? (message.attachments ?? []) : []))
        .map((item) => JSON.stringify(item.name));
      throw new HostServiceError(
        "not-found",
        `no file named ${JSON.stringify(name)} is attached to this session${names.length > 0 ? `; attached: ${[...new Set(names)].join(", ")}` : " (the person attaches files in the composer)"}`,
      );
    }
    return options.chooser.register(attachmentFile(found)) as unknown as JsonValue;
  };
}

/** The attachment as a File (its bytes decoded from base64). */
export function attachmentFile(attachment: Attachment): File {
  const binary = atob(attachment.data);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return new File([bytes], attachment.name, { type: attachment.mediaType });
}
