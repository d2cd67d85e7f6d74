/**
 * The tools' sections of **Session settings** (the MCP servers, the granted
 * tools): drawn by ToolSections.tsx, which loads with the dialog's first
 * opening, not with the page.
 */
import { lazy, Suspense } from "react";
import type { ToolsSettingsHandle } from "./installTools";

const ToolSections = lazy(() => import("./ToolSections"));

export function ToolsSettings({ tools }: { tools: ToolsSettingsHandle }) {
  return (
    <Suspense fallback={null}>
      <ToolSections tools={tools} />
    </Suspense>
  );
}
