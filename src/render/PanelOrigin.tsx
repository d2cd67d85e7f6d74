/**
 * The origin line above a panel of content Livemark did not make (a mount,
 * an MCP App view): its title as the heading, then who made it. Drawn
 * outside the panel's box, so what runs inside cannot draw over or restyle it.
 */
import type { CSSProperties, ReactNode } from "react";

const ORIGIN_STYLE: CSSProperties = Object.freeze({
  display: "flex",
  flexWrap: "wrap",
  gap: "4px 12px",
  alignItems: "baseline",
  fontSize: "11px",
  lineHeight: "16px",
  color: "var(--lm-muted, #6b7280)",
  margin: "0 0 2px",
});
const TITLE_STYLE: CSSProperties = Object.freeze({
  margin: 0,
  fontSize: "14px",
  lineHeight: "20px",
  fontWeight: 600,
  color: "var(--lm-text, #111827)",
  overflowWrap: "anywhere",
});

/** `title` (if any) as the panel's heading; `children`: who made it, and any warning about it. */
export function PanelOrigin({ title, children }: { title?: string; children: ReactNode }) {
  return (
    <div className="lm-mount-origin" style={ORIGIN_STYLE}>
      {title ? <h3 style={TITLE_STYLE}>{title}</h3> : null}
      {children}
    </div>
  );
}
