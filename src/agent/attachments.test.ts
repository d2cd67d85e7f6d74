import { describe, expect, it } from "vitest";
import {
  attachedFilesNote,
  attachmentProblem,
  findAttachment,
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS,
  userContent,
  type Attachment,
} from "./attachments";

const image: Attachment = { name: "dot.png", mediaType: "image/png", size: 68, data: "iVBORw0KGgo=" };
const csv: Attachment = { name: "sales.csv", mediaType: "text/csv", size: 28, data: "Y2l0eQ==" };

describe("attachments", () => {
  it("refuses a file over the cap, over the message total, or past the count, saying which and why", () => {
    expect(attachmentProblem({ name: "a.bin", size: MAX_ATTACHMENT_BYTES }, [])).toBeUndefined();
    expect(attachmentProblem({ name: "big.bin", size: MAX_ATTACHMENT_BYTES + 1 }, [])).toMatch(
      /^“big\.bin” is 5\.0 MB; files up to 5\.0 MB can be attached/,
    );
    const full = [{ size: MAX_ATTACHMENT_BYTES }, { size: MAX_ATTACHMENT_BYTES - 10 }];
    expect(attachmentProblem({ name: "c.bin", size: 100 }, full)).toMatch(/together the files would be 10\.0 MB/);
    expect(
      attachmentProblem(
        { name: "d.txt", size: 1 },
        Array.from({ length: MAX_ATTACHMENTS }, () => ({ size: 1 })),
      ),
    ).toMatch(/at most 10 files/);
  });

  it("sends images as image parts and tells the model how code opens the other files", () => {
    expect(userContent("hi", undefined)).toBe("hi");
    expect(userContent("hi", [])).toBe("hi");
    expect(userContent("look", [image])).toEqual([
      { type: "text", text: "look" },
      { type: "image", image: image.data, mediaType: "image/png" },
    ]);
    const withFile = userContent("sum it", [csv]);
    expect(typeof withFile).toBe("string");
    expect(withFile).toContain('await attachment("sales.csv")');
    expect(withFile).toContain('- "sales.csv" (text/csv, 28 B)');
    const both = userContent("both", [csv, image]) as { type: string; text?: string }[];
    expect(both.map((part) => part.type)).toEqual(["text", "image"]);
    expect(both[0].text).toContain('"sales.csv"');
    expect(both[0].text).not.toContain("dot.png");
    expect(attachedFilesNote([image])).toBe("");
    expect(userContent("", [image])).toEqual([{ type: "image", image: image.data, mediaType: "image/png" }]);
  });

  it("finds the newest attachment of a name among the person's messages only", () => {
    const older = { ...csv, data: "b2xk" };
    const messages = [
      { role: "user", attachments: [older] },
      { role: "assistant", attachments: [{ ...csv, data: "bm90LWEtcGVyc29u" }] },
      { role: "user", attachments: [csv] },
    ];
    expect(findAttachment(messages, "sales.csv")?.data).toBe(csv.data);
    expect(findAttachment(messages.slice(0, 2), "sales.csv")?.data).toBe("b2xk");
    expect(findAttachment(messages, "other.csv")).toBeUndefined();
  });
});
