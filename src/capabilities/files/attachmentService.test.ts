import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../agent/types";
import type { FileChooser } from "../../render/fileChooser";
import { createAttachmentService } from "./attachmentService";

const context = { signal: new AbortController().signal } as Parameters<ReturnType<typeof createAttachmentService>>[1];
const csv = { name: "sales.csv", mediaType: "text/csv", size: 4, data: btoa("a,b\n") };

function setup(messages: ChatMessage[]) {
  const registered: File[] = [];
  const chooser: FileChooser = {
    register: (file) => {
      registered.push(file);
      return { handle: `h${registered.length}`, name: file.name, size: file.size, type: file.type, lastModified: 0 };
    },
  };
  return { service: createAttachmentService({ messages: () => messages, chooser }), registered };
}

describe("attachment(name): the FILE_ATTACHMENT host service", () => {
  it("hands over a file the person attached in this session, as a registered handle with its bytes", async () => {
    const { service, registered } = setup([{ id: "u1", role: "user", text: "sum", createdAt: 1, attachments: [csv] }]);
    expect(await service({ name: "sales.csv" }, context)).toEqual({
      handle: "h1",
      name: "sales.csv",
      size: 4,
      type: "text/csv",
      lastModified: 0,
    });
    expect(await registered[0].text()).toBe("a,b\n");
  });

  it("refuses any other name, saying what is attached, and files only mentioned by the model or in output", async () => {
    const reply = {
      id: "a1",
      role: "assistant",
      text: "see secret.txt",
      createdAt: 2,
      attachments: [{ ...csv, name: "secret.txt" }],
    } as unknown as ChatMessage;
    const { service, registered } = setup([
      { id: "u1", role: "user", text: "sum", createdAt: 1, attachments: [csv] },
      reply,
    ]);
    await expect(Promise.resolve().then(() => service({ name: "secret.txt" }, context))).rejects.toMatchObject({
      code: "not-found",
      message: 'no file named "secret.txt" is attached to this session; attached: "sales.csv"',
    });
    await expect(Promise.resolve().then(() => service({ name: 42 } as never, context))).rejects.toMatchObject({
      code: "invalid",
    });
    await expect(Promise.resolve().then(() => setup([]).service({ name: "sales.csv" }, context))).rejects.toMatchObject(
      { code: "not-found" },
    );
    expect(registered).toHaveLength(0);
  });
});
