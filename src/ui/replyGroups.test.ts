import { describe, expect, it } from "vitest";
import type { BlockView } from "../agent/reply";
import { GROUP_BLOCKS, groupBlocks, sameGroup } from "./replyGroups";

const text = (index: number): BlockView => ({ index, kind: "text", line: index + 1, text: `Paragraph ${index}.` });
const code = (index: number): BlockView => ({
  index,
  kind: "code",
  lang: "ts",
  line: index + 1,
  source: "const x = 1",
  closed: true,
  unterminated: false,
  status: "done",
  statements: [],
});
const data = (index: number): BlockView => ({
  index,
  kind: "data",
  id: `d${index}`,
  line: index + 1,
  source: "{}",
  closed: true,
  unterminated: false,
  status: "done",
});
/** text, code, text, data, … : every kind at every position of a group over a few groups. */
const reply = (count: number): BlockView[] =>
  Array.from({ length: count }, (_, index) => [text, code, text, data, code][index % 5](index));

describe("groupBlocks", () => {
  it("keeps every block in order, in full groups but the last, numbering code and data blocks across groups", () => {
    for (const count of [0, 1, GROUP_BLOCKS - 1, GROUP_BLOCKS, GROUP_BLOCKS + 1, 5 * GROUP_BLOCKS + 7]) {
      const blocks = reply(count);
      const groups = groupBlocks(blocks);
      expect(groups.flatMap((group) => group.blocks)).toEqual(blocks);
      expect(groups.length).toBe(Math.ceil(count / GROUP_BLOCKS));
      for (const group of groups.slice(0, -1)) expect(group.blocks.length).toBe(GROUP_BLOCKS);
      // A block's number among its kind, from 1, as the whole reply counts it.
      for (const group of groups) {
        let codeNumber = group.codeBefore;
        let dataNumber = group.dataBefore;
        for (const block of group.blocks) {
          const before = blocks.slice(0, blocks.indexOf(block) + 1).filter((other) => other.kind === block.kind);
          if (block.kind === "code") expect((codeNumber += 1)).toBe(before.length);
          if (block.kind === "data") expect((dataNumber += 1)).toBe(before.length);
        }
      }
    }
  });

  it("leaves a settled group the same while the reply grows and its last block changes", () => {
    const blocks = reply(3 * GROUP_BLOCKS + 2);
    const before = groupBlocks(blocks);
    // The last block grows (reply.ts replaces that block only), then a block is added.
    const grown = blocks.slice();
    grown[grown.length - 1] = { index: grown.length - 1, kind: "text", line: 1, text: "Paragraph, longer now." };
    grown.push(text(grown.length));
    const after = groupBlocks(grown);
    expect(after.length).toBe(before.length);
    for (let position = 0; position < before.length - 1; position += 1)
      expect(sameGroup(before[position], after[position])).toBe(true);
    expect(sameGroup(before.at(-1)!, after.at(-1)!)).toBe(false);
  });

  it("tells a settled group changed when one of its blocks did (a code block that ran)", () => {
    const blocks = reply(2 * GROUP_BLOCKS);
    const ran = blocks.slice();
    ran[1] = { ...(ran[1] as Extract<BlockView, { kind: "code" }>), status: "error" };
    const [first, second] = groupBlocks(blocks);
    const [firstAfter, secondAfter] = groupBlocks(ran);
    expect(sameGroup(first, firstAfter)).toBe(false);
    expect(sameGroup(second, secondAfter)).toBe(true);
  });
});
