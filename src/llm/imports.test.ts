import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

it("src/llm imports nothing from workers/, React, or other app areas", () => {
  for (const file of sources(here)) {
    for (const match of readFileSync(file, "utf8").matchAll(/from\s+"([^"]+)"/g)) {
      const target = match[1];
      expect(target, `${file} imports ${target}`).not.toMatch(
        /workers\/|^react|\.\.\/(agent|ui|sandbox|render|store|protocol)\b/,
      );
    }
  }
});
