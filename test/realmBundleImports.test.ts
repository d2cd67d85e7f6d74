/**
 * The sandbox's wall in the source tree (STYLE.md §1, src/capabilities/README.md):
 * the realm bundle is everything workers/realm/index.ts reaches by import, and
 * none of it may be host code — only workers/realm itself, src/wire (the
 * contract both sides share) and packages. A capability's realm half lives in
 * workers/realm/runtime/capabilities/ for this reason. The other way round,
 * nothing in src/ outside src/wire imports workers/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Every module specifier of a file: imports and re-exports (type-only ones too), dynamic imports; comments skipped. */
function specifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${relative(ROOT, from)}: cannot resolve ${specifier}`);
}

/** The files a module reaches through relative imports, itself included. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) queue.push(resolveRelative(file, specifier));
    }
  }
  return seen;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(folder, name));
}

describe("the realm bundle's imports", () => {
  it("reach only workers/realm and src/wire", () => {
    const files = [...reachable(join(ROOT, "workers/realm/index.ts"))].map((file) =>
      relative(ROOT, file).split("\\").join("/"),
    );
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((file) => !file.startsWith("workers/realm/") && !file.startsWith("src/wire/"))).toEqual([]);
    // The capabilities' realm halves are in the bundle (and so under this rule).
    for (const name of ["network", "files", "tools"])
      expect(files).toContain(`workers/realm/runtime/capabilities/${name}.ts`);
  });

  it("the scanner sees host code where it is imported", () => {
    // A stand-in source: the check above would fail on it.
    expect(
      specifiers(
        `// import { w } from "./w"\nimport type { X } from "../../src/session/createApp";\nexport { y } from "./y";\nconst z = import("../z");`,
      ),
    ).toEqual(["../../src/session/createApp", "./y", "../z"]);
  });

  it("src/ outside src/wire never imports workers/", () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(ROOT, "src"))) {
      if (file.includes(`${join("src", "wire")}`) || /\.test\.tsx?$/.test(file)) continue;
      for (const specifier of specifiers(readFileSync(file, "utf8"))) {
        if (specifier.startsWith(".") && relative(ROOT, resolve(dirname(file), specifier)).startsWith("workers"))
          offenders.push(`${relative(ROOT, file)} → ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
