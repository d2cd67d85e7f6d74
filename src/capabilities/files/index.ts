/**
 * Files between the person and the realm (DESIGN.md §4): files chosen in a
 * mounted `<input type="file">` (`FILE_READ`), files attached to a message
 * (`attachment(name)`: attachmentService.ts), files offered by
 * `download(name, data, mimeType?)` and saved only on the person's click
 * (`FILE_OFFER`). No ask: the person's own click is the consent. The chosen
 * files and offers are kept by the person's side
 * (src/session/capabilityController.ts). Its lines in the system prompt:
 * prompt.ts. Realm half:
 * workers/realm/runtime/capabilities/files.ts.
 */
import { FILE_ATTACHMENT, FILE_OFFER, FILE_READ } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { createAttachmentService } from "./attachmentService";
import { filesPrompt } from "./prompt";

export const files: Capability = {
  name: "files",
  realmGlobals: ["download", "attachment"],
  install({ person, messages }) {
    return {
      services: {
        [FILE_READ]: person.fileReadService,
        [FILE_OFFER]: person.fileOfferService,
        [FILE_ATTACHMENT]: createAttachmentService({ messages, chooser: person.fileChooser }),
      },
    };
  },
  summary(used) {
    const handed = used.filter((entry) => entry.capability === "file");
    if (handed.length === 0) return undefined;
    return `files: ${handed
      .map((entry) => `${entry.decision} ${entry.url}`)
      .slice(0, 3)
      .join(", ")}`;
  },
  prompt: filesPrompt,
};
