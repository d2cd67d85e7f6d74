/**
 * The catalog: every type the host renders, by the name the realm sends,
 * mapped to a host component. Frozen. What is not here (script, iframe,
 * object, embed, base, meta, link, style, foreignObject, any unknown name)
 * renders an inline error and is reported; it never reaches the DOM.
 *
 * The props each type accepts live in componentSpecs.ts (pure, tested);
 * componentSpecs and this map list the same names (catalog.test.ts).
 */
import { Component, Suspense, lazy, useEffect, type ComponentType, type ErrorInfo, type ReactNode } from "react";
import { COMPONENT_SPECS, iconNameOf } from "./componentSpecs";
import { ICON_COMPONENT } from "./contract";
import { HtmlControl, HtmlElement, HtmlForm, HtmlOption } from "./htmlElements";
import * as kit from "./kit";
import { useMount, type NodeComponentProps } from "./mountContext";

const ChartView = lazy(() => import("./charts"));
const IconGlyph = lazy(() => import("./icons"));

/** Shown in place of a component the host will not render. */
export function UnknownComponent({
  type,
  reason,
}: {
  type: string;
  reason: "unknown" | "not-allowed" | "outside-chart";
}): ReactNode {
  const text =
    reason === "outside-chart"
      ? `<${type}> must be inside a chart`
      : reason === "not-allowed"
        ? `<${type}> is not allowed here`
        : `Unknown component <${type}>`;
  return (
    <span className="lmk-unknown" role="note" data-unknown-component={type}>
      {text}
    </span>
  );
}

/** Catches a render failure in one part (a chart with impossible props) so the rest of the mount stays up. */
export class PartBoundary extends Component<
  { label: string; onError(error: unknown): void; children: ReactNode },
  { failed: boolean }
> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override componentDidCatch(error: unknown, _info: ErrorInfo): void {
    this.props.onError(error);
  }
  override render(): ReactNode {
    if (this.state.failed)
      return (
        <span className="lmk-unknown" role="note">
          {this.props.label} failed to render
        </span>
      );
    return this.props.children;
  }
}

function ChartRoot({ node }: NodeComponentProps): ReactNode {
  const context = useMount();
  return (
    <PartBoundary
      label={`<${node.type}>`}
      onError={(error) =>
        context.store.report({
          code: "unknown-component",
          message: `<${node.type}> failed to render: ${String(error).slice(0, 300)}`,
          details: { type: node.type },
        })
      }
    >
      <Suspense fallback={<span className="lmk-chart-loading" aria-busy="true" />}>
        <ChartView nodeId={node.id} />
      </Suspense>
    </PartBoundary>
  );
}

function ChartPartOutsideChart({ node }: NodeComponentProps): ReactNode {
  const context = useMount();
  useEffect(() => context.reportUnknown(node.type, "outside-chart"), [context, node.type]);
  return <UnknownComponent type={node.type} reason="outside-chart" />;
}

function iconProps(props: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...rest } = props;
  const size = typeof rest.size === "number" || typeof rest.size === "string" ? rest.size : 16;
  return {
    ...rest,
    size,
    className: ["lmk-icon", rest.className].filter(Boolean).join(" "),
    "aria-hidden": rest["aria-label"] === undefined ? true : undefined,
  };
}

function IconView({ node, props }: NodeComponentProps): ReactNode {
  const context = useMount();
  const name =
    node.type === ICON_COMPONENT ? (typeof props.name === "string" ? props.name : "") : (iconNameOf(node.type) ?? "");
  const clean = iconProps(props);
  const size = typeof clean.size === "number" ? clean.size : 16;
  const placeholder = <span className="lmk-icon" style={{ width: size, height: size }} aria-hidden="true" />;
  const missingType = node.type === ICON_COMPONENT ? `Icon name="${name.slice(0, 64)}"` : node.type;
  return (
    <Suspense fallback={placeholder}>
      <IconGlyph
        name={name}
        props={clean}
        placeholder={placeholder}
        fallback={<MissingIcon type={missingType} report={() => context.reportUnknown(missingType, "unknown")} />}
      />
    </Suspense>
  );
}

function MissingIcon({ type, report }: { type: string; report(): void }): ReactNode {
  useEffect(report, [type]);
  return <UnknownComponent type={type} reason="unknown" />;
}

const HTML_RENDERERS: Record<string, ComponentType<NodeComponentProps>> = {
  input: HtmlControl,
  textarea: HtmlControl,
  select: HtmlControl,
  option: HtmlOption,
  form: HtmlForm,
};

const KIT_RENDERERS: Record<string, ComponentType<NodeComponentProps>> = {
  Card: kit.Card,
  CardHeader: kit.CardHeader,
  CardTitle: kit.CardTitle,
  CardDescription: kit.CardDescription,
  CardContent: kit.CardContent,
  CardFooter: kit.CardFooter,
  Button: kit.Button,
  Input: kit.Input,
  Textarea: kit.Textarea,
  Label: kit.Label,
  Select: kit.Select,
  SelectTrigger: kit.SelectPart,
  SelectValue: kit.SelectPart,
  SelectContent: kit.SelectPart,
  SelectItem: kit.SelectPart,
  Checkbox: kit.Checkbox,
  Switch: kit.Switch,
  Slider: kit.Slider,
  Badge: kit.Badge,
  Alert: kit.Alert,
  AlertTitle: kit.AlertTitle,
  AlertDescription: kit.AlertDescription,
  Progress: kit.Progress,
  Skeleton: kit.Skeleton,
  Separator: kit.Separator,
  Tabs: kit.Tabs,
  TabsList: kit.TabsList,
  TabsTrigger: kit.TabsTrigger,
  TabsContent: kit.TabsContent,
  Table: kit.Table,
  TableHeader: kit.TableHeader,
  TableBody: kit.TableBody,
  TableRow: kit.TableRow,
  TableHead: kit.TableHead,
  TableCell: kit.TableCell,
  TableCaption: kit.TableCaption,
  ResponsiveContainer: ChartRoot,
  LineChart: ChartRoot,
  BarChart: ChartRoot,
  AreaChart: ChartRoot,
  PieChart: ChartRoot,
  Line: ChartPartOutsideChart,
  Bar: ChartPartOutsideChart,
  Area: ChartPartOutsideChart,
  Pie: ChartPartOutsideChart,
  Cell: ChartPartOutsideChart,
  XAxis: ChartPartOutsideChart,
  YAxis: ChartPartOutsideChart,
  CartesianGrid: ChartPartOutsideChart,
  Tooltip: ChartPartOutsideChart,
  Legend: ChartPartOutsideChart,
  Icon: IconView,
};

/** Type name → host component. Frozen. */
export const CATALOG: Readonly<Record<string, ComponentType<NodeComponentProps>>> = Object.freeze(
  Object.fromEntries(
    Object.entries(COMPONENT_SPECS).map(([type, spec]) => [
      type,
      KIT_RENDERERS[type] ??
        HTML_RENDERERS[type] ??
        (spec.kind === "html" || spec.kind === "svg" ? HtmlElement : undefined),
    ]),
  ) as Record<string, ComponentType<NodeComponentProps>>,
);

/** The component for a type: catalog entries, then `<Name>Icon`. */
export function componentFor(type: string): ComponentType<NodeComponentProps> | undefined {
  if (Object.hasOwn(CATALOG, type)) return CATALOG[type];
  if (iconNameOf(type) !== undefined) return IconView;
  return undefined;
}

/** Types refused on purpose (named in the inline error as "not allowed"): kept in drawable.ts. */
export { REFUSED_TYPES } from "./drawable";
