/**
 * Lucide icons by name, loaded lazily in two steps: the common set the
 * realm exposes (small chunk) first, the whole lucide set (~200 KB gzipped)
 * only for a name outside it.
 */
import { Suspense, lazy, type ReactNode } from "react";
import { COMMON_ICONS } from "./iconsCommon";
import { iconCandidates } from "./iconNames";

const AnyIcon = lazy(() => import("./iconsAll"));

export interface IconGlyphProps {
  name: string;
  props: Record<string, unknown>;
  /** Rendered when no lucide icon has this name. */
  fallback: ReactNode;
  /** Rendered while the whole set loads. */
  placeholder: ReactNode;
}

export default function IconGlyph({ name, props, fallback, placeholder }: IconGlyphProps): ReactNode {
  const candidates = iconCandidates(name);
  if (candidates.length === 0) return fallback;
  for (const candidate of candidates) {
    const Icon = Object.hasOwn(COMMON_ICONS, candidate) ? COMMON_ICONS[candidate] : undefined;
    if (Icon) return <Icon {...props} />;
  }
  return (
    <Suspense fallback={placeholder}>
      <AnyIcon name={name} props={props} fallback={fallback} />
    </Suspense>
  );
}
