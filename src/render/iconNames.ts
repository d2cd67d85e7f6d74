/**
 * Icon names (src/wire/mount.ts): type `StarIcon` is lucide's `Star`;
 * `<Icon name="…" />` accepts `Star`, `StarIcon`, `star` and `arrow-right`.
 * Lucide's own aliases work too (`AlertCircle` is `CircleAlert`). Pure.
 */

/** `arrow-right` → `ArrowRight`, `star` → `Star`; PascalCase passes through. */
export function pascalIconName(name: string): string {
  if (!/[-_ ]/.test(name) && /^[A-Z]/.test(name)) return name;
  return name
    .split(/[-_ ]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}

/** Export names to try for an icon name, most likely first. */
export function iconCandidates(name: string): string[] {
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z0-9 _-]+$/.test(name)) return [];
  const pascal = pascalIconName(name);
  return pascal.endsWith("Icon") && pascal !== "Icon" ? [pascal.slice(0, -4), pascal] : [pascal];
}
