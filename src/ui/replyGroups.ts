import type { BlockView } from "../agent/reply";

/**
 * A reply's blocks drawn in groups (issue 34 §2): while a long reply streams,
 * each frame must cost the same however long the reply already is. Chromium's
 * layout, pre-paint, paint and the intersection observer behind
 * `content-visibility: auto` each walk the reply's top-level boxes, and React
 * walks its children; with one box per block (about 900 at 200k characters)
 * the worst frame grew with the reply. Grouped, a frame touches about
 * blocks / GROUP_BLOCKS settled groups (memoised, one `content-visibility: auto`
 * box each) and the open group that holds the growing block.
 *
 * Pure. Invariants: the groups' blocks, in order, are `blocks`; every group
 * but the last holds exactly `size` blocks, so a block never moves to another
 * group as the reply grows (its DOM node is kept); a group's `codeBefore` and
 * `dataBefore` count the code and data blocks before it (their numbers, from 1,
 * continue from there).
 */
export const GROUP_BLOCKS = 24;

export interface BlockGroup {
  blocks: BlockView[];
  codeBefore: number;
  dataBefore: number;
}

export function groupBlocks(blocks: readonly BlockView[], size: number = GROUP_BLOCKS): BlockGroup[] {
  const groups: BlockGroup[] = [];
  let code = 0;
  let data = 0;
  for (let start = 0; start < blocks.length; start += size) {
    const group = { blocks: blocks.slice(start, start + size), codeBefore: code, dataBefore: data };
    for (const block of group.blocks) {
      if (block.kind === "code") code += 1;
      else if (block.kind === "data") data += 1;
    }
    groups.push(group);
  }
  return groups;
}

/** The same blocks (each the same object: reply.ts replaces only a block that changed) and numbering. */
export function sameGroup(before: BlockGroup, after: BlockGroup): boolean {
  return (
    before.codeBefore === after.codeBefore &&
    before.dataBefore === after.dataBefore &&
    before.blocks.length === after.blocks.length &&
    before.blocks.every((block, position) => block === after.blocks[position])
  );
}
