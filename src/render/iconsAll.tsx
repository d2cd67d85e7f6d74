/**
 * Every lucide icon by name: one big lazy chunk, loaded only when a mount
 * asks for an icon outside the common set (iconsCommon.ts). Names arrive at
 * run time, so tree-shaking cannot pick them at build time.
 */
import * as lucide from "lucide-react";
import type { ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { iconCandidates } from "./iconNames";

const NOT_ICONS = new Set([
  "icons",
  "Icon",
  "LucideProvider",
  "useLucideContext",
  "createLucideIcon",
  "DynamicIcon",
  "default",
]);

export function findAnyIcon(name: string): LucideIcon | undefined {
  for (const candidate of iconCandidates(name)) {
    if (NOT_ICONS.has(candidate) || !Object.hasOwn(lucide, candidate)) continue;
    const value = (lucide as Record<string, unknown>)[candidate];
    // Icons are forwardRef objects; everything else lucide exports is not.
    if (typeof value === "object" && value !== null && "$$typeof" in value) return value as LucideIcon;
  }
  return undefined;
}

export default function AnyIcon({
  name,
  props,
  fallback,
}: {
  name: string;
  props: Record<string, unknown>;
  fallback: ReactNode;
}): ReactNode {
  const Icon = findAnyIcon(name);
  return Icon ? <Icon {...props} /> : fallback;
}
