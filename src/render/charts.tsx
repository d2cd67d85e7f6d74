/**
 * Recharts under Recharts' own names. Loaded lazily (Recharts is most of a
 * mount's JavaScript). Recharts wants its parts as real child elements, so a
 * chart root reads its whole subtree from the store and builds the element
 * tree itself; the parts (Line, XAxis, …) never render as node views.
 */
import { useEffect, useMemo, type ReactElement, type ReactNode } from "react";
import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  Line,
  LineChart,
  Pie,
  PieChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { TEXT_NODE_TYPE } from "./contract";
import { specFor } from "./componentSpecs";
import { useMount, useSubtreeVersion, type MountRenderContext } from "./mountContext";
import type { MountNode } from "./mountStore";
import { sanitizeProps, type DroppedProp } from "./sanitizeProps";

/* eslint-disable @typescript-eslint/no-explicit-any -- Recharts' prop types are too wide to restate; props are sanitized by spec. */
type AnyComponent = React.ComponentType<any>;

const CHARTS: Record<string, AnyComponent> = { LineChart, BarChart, AreaChart, PieChart };
const PARTS: Record<string, AnyComponent> = {
  Line,
  Bar,
  Area,
  Pie,
  Cell,
  XAxis,
  YAxis,
  CartesianGrid,
  Tooltip,
  Legend,
};
/** Parts whose children are parts too. */
const PARTS_WITH_CHILDREN = new Set(["Pie", "Bar"]);

export const DEFAULT_CHART_HEIGHT = 300;

interface BuildState {
  context: MountRenderContext;
  dropped: Array<{ type: string; dropped: DroppedProp[] }>;
  unknown: string[];
}

function sanitized(
  state: BuildState,
  node: MountNode,
): { props: Record<string, any>; handlers: Record<string, string> } {
  const spec = specFor(node.type)!;
  const result = sanitizeProps(spec, node.props, { idPrefix: state.context.idPrefix });
  if (result.dropped.length > 0) state.dropped.push({ type: node.type, dropped: result.dropped });
  if (result.classTokens.length > 0) state.context.styleSheet.addTokens(result.classTokens);
  return { props: result.props, handlers: result.handlers };
}

/** A dimension Recharts accepts: a number or a percentage. */
function dimension(value: unknown): number | `${number}%` | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return Math.min(value, 2000);
  if (typeof value === "string" && /^\d{1,3}(\.\d+)?%$/.test(value)) return value as `${number}%`;
  return undefined;
}

function rows(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function buildPart(state: BuildState, id: number, data: unknown[]): ReactElement | null {
  const node = state.context.store.getNode(id);
  if (!node || node.type === TEXT_NODE_TYPE) return null;
  const Component = PARTS[node.type];
  if (!Component) {
    state.unknown.push(node.type);
    return null;
  }
  const { props, handlers } = sanitized(state, node);
  const partData = Array.isArray(props.data) ? props.data : data;
  if (handlers.onClick) {
    // Recharts hands (item, index, event) for bars and slices; the row is
    // looked up in the JSON the realm sent, never taken from Recharts' object.
    props.onClick = (_item: unknown, index: unknown) => {
      const row = typeof index === "number" ? partData[index] : undefined;
      state.context.emit(node.id, "onClick", row === undefined ? {} : { value: row as never });
    };
  }
  const children = PARTS_WITH_CHILDREN.has(node.type)
    ? node.children.map((child) => buildPart(state, child, partData)).filter((child) => child !== null)
    : [];
  return (
    <Component key={node.id} {...props}>
      {children.length > 0 ? children : undefined}
    </Component>
  );
}

function buildChart(state: BuildState, node: MountNode, sized: boolean): ReactElement | null {
  const Chart = CHARTS[node.type];
  if (!Chart) return null;
  const { props } = sanitized(state, node);
  const data = rows(props.data);
  const parts = node.children.map((child) => buildPart(state, child, data)).filter((child) => child !== null);
  const chart = (
    <Chart key={node.id} {...props}>
      {parts}
    </Chart>
  );
  if (sized || (dimension(props.width) !== undefined && dimension(props.height) !== undefined)) return chart;
  // A chart without a size fills the width at a sensible height.
  return (
    <ResponsiveContainer key={node.id} width="100%" height={dimension(props.height) ?? DEFAULT_CHART_HEIGHT}>
      {chart}
    </ResponsiveContainer>
  );
}

function build(state: BuildState, id: number): ReactElement | null {
  const node = state.context.store.getNode(id);
  if (!node) return null;
  if (node.type !== "ResponsiveContainer") return buildChart(state, node, false);
  const { props } = sanitized(state, node);
  const inner = node.children
    .map((child) => state.context.store.getNode(child))
    .find((child) => child !== undefined && CHARTS[child.type] !== undefined);
  if (!inner) return null;
  const width = dimension(props.width) ?? "100%";
  const height = dimension(props.height) ?? DEFAULT_CHART_HEIGHT;
  return (
    <ResponsiveContainer
      width={width}
      height={height}
      minHeight={typeof props.minHeight === "number" ? props.minHeight : undefined}
      aspect={typeof props.aspect === "number" && props.aspect > 0 ? props.aspect : undefined}
    >
      {buildChart(state, inner, true)}
    </ResponsiveContainer>
  );
}

/** A chart root (ResponsiveContainer or a *Chart) and everything under it. */
export default function ChartView({ nodeId }: { nodeId: number }): ReactNode {
  const context = useMount();
  const version = useSubtreeVersion(nodeId);
  const { element, dropped, unknown } = useMemo(() => {
    const state: BuildState = { context, dropped: [], unknown: [] };
    return { element: build(state, nodeId), dropped: state.dropped, unknown: state.unknown };
    // `version` changes whenever anything in the subtree does.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [context, nodeId, version]);
  useEffect(() => {
    for (const entry of dropped) context.reportDropped(entry.type, entry.dropped);
    for (const type of unknown) context.reportUnknown(type, "unknown");
  }, [context, dropped, unknown]);
  return (
    <div className="lmk-chart" data-node-id={nodeId}>
      {element}
    </div>
  );
}
