/**
 * Lucide icons by name. Loaded lazily (the whole set is one chunk, fetched
 * the first time a mount shows an icon): names arrive at run time, so
 * tree-shaking cannot pick them at build time.
 *
 * Names (src/wire/mount.ts): type `StarIcon` is lucide's `Star`; `<Icon
 * name="Star" />` accepts `Star`, `StarIcon`, `star` and `arrow-right`.
 * Lucide's own aliases work (`AlertCircle` = `CircleAlert`).
 */
import * as lucide from "lucide-react";
import type { ComponentType, ReactNode } from "react";

type IconComponent = ComponentType<Record<string, unknown>>;

const NOT_ICONS = new Set(["icons", "Icon", "LucideProvider", "useLucideContext", "createLucideIcon", "DynamicIcon", "default"]);

/** `arrow-right` → `ArrowRight`, `star` → `Star`; PascalCase passes through. */
export function pascalIconName(name: string): string {
  if (!/[-_ ]/.test(name) && /^[A-Z]/.test(name)) return name;
  return name
    .split(/[-_ ]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}

export function findIcon(name: string): IconComponent | undefined {
  if (name.length === 0 || name.length > 64) return undefined;
  const pascal = pascalIconName(name);
  const candidates = pascal.endsWith("Icon") ? [pascal, pascal.slice(0, -4)] : [pascal];
  for (const candidate of candidates) {
    if (NOT_ICONS.has(candidate) || !Object.hasOwn(lucide, candidate)) continue;
    const value = (lucide as Record<string, unknown>)[candidate];
    // Icons are forwardRef objects.
    if (typeof value === "object" && value !== null && "$$typeof" in value) return value as IconComponent;
  }
  return undefined;
}

export interface IconGlyphProps {
  name: string;
  props: Record<string, unknown>;
  fallback: ReactNode;
}

export default function IconGlyph({ name, props, fallback }: IconGlyphProps): ReactNode {
  const Icon = findIcon(name);
  if (!Icon) return fallback;
  return <Icon {...props} />;
}
