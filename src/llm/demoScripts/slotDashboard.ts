import { END, RUN, expecting, type DemoScript } from "./script";

const build = `A dashboard that shows up **before** its numbers: I mount the layout first, with a placeholder in each \`<Slot>\`, then each statement works out one part and fills its slot.

${RUN}
const board = mount({
  title: "Corner shop: last 7 days",
  ui: () => (
    <div className="grid gap-4">
      <Slot name="totals" fallback={<Skeleton className="h-20" />} />
      <div className="grid gap-4 md:grid-cols-2">
        <Slot name="chart" fallback={<Skeleton className="h-56" />} />
        <Slot name="top" fallback={<Skeleton className="h-56" />} />
      </div>
    </div>
  ),
})
const week = [
  { day: "Mon", orders: 32, revenue: 1480 },
  { day: "Tue", orders: 28, revenue: 1210 },
  { day: "Wed", orders: 41, revenue: 1930 },
  { day: "Thu", orders: 37, revenue: 1660 },
  { day: "Fri", orders: 52, revenue: 2540 },
  { day: "Sat", orders: 64, revenue: 3120 },
  { day: "Sun", orders: 23, revenue: 990 },
]
const dollars = (amount: number) => "$" + amount.toLocaleString("en-US", { maximumFractionDigits: 2 })
await sleep(800)
const revenue = week.reduce((sum, day) => sum + day.revenue, 0)
const orderCount = week.reduce((sum, day) => sum + day.orders, 0)
board.mountSlot("totals", () => (
  <div className="grid grid-cols-1 sm:grid-cols-3 gap-3">
    <Card className="p-3"><div className="text-xs text-gray-500 dark:text-gray-400">Revenue</div><div className="text-xl font-semibold">{dollars(revenue)}</div></Card>
    <Card className="p-3"><div className="text-xs text-gray-500 dark:text-gray-400">Orders</div><div className="text-xl font-semibold">{orderCount}</div></Card>
    <Card className="p-3"><div className="text-xs text-gray-500 dark:text-gray-400">Average order</div><div className="text-xl font-semibold">{dollars(revenue / orderCount)}</div></Card>
  </div>
))
await sleep(800)
board.mountSlot("chart", () => (
  <Card className="p-3">
    <BarChart data={week} height={200}>
      <XAxis dataKey="day" />
      <YAxis />
      <Tooltip />
      <Bar dataKey="revenue" name="Revenue ($)" fill="#6366f1" />
    </BarChart>
  </Card>
))
await sleep(800)
const bestSellers = [{ item: "Coffee beans", sold: 84 }, { item: "Croissants", sold: 71 }, { item: "Oat milk", sold: 45 }]
board.mountSlot("top", () => (
  <Table>
    <TableHeader><TableRow><TableHead>Best sellers</TableHead><TableHead className="text-right">Sold</TableHead></TableRow></TableHeader>
    <TableBody>
      {bestSellers.map((row) => (
        <TableRow key={row.item}><TableCell>{row.item}</TableCell><TableCell className="text-right">{row.sold}</TableCell></TableRow>
      ))}
    </TableBody>
  </Table>
))
const busiest = week.reduce((a, b) => (b.revenue > a.revenue ? b : a))
console.log("revenue:", revenue, "| orders:", orderCount, "| busiest day:", busiest.day, busiest.revenue)
${END}`;

const sum = `The dashboard is complete. **$12,930** from **277 orders** this week, about $46.68 per order; **Saturday** was the busiest day, with $3,120.

Notice the order things appeared in: the layout and its placeholders came first, then the totals, the chart and the table, each as soon as its statement ran. In a real session those statements would \`fetch\` their data. This reply logs nothing, so it's your turn.`;

export const slotDashboard: DemoScript = {
  name: "dashboard",
  title: "A dashboard shell with slots, filled part by part by later statements",
  suggestion: "Build me a dashboard",
  keywords: [
    "dashboard",
    "dashboards",
    "slot",
    "slots",
    "layout",
    "kpi",
    "kpis",
    "overview",
    "skeleton",
    "report",
    "shop",
    "sales",
  ],
  steps: [build, expecting(/revenue:\W+12930\W+orders:\W+277\W+busiest day:\W+Sat\W+3120\b/, sum)],
};
