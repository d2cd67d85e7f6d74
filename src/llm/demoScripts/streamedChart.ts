import { END, RUN, expecting, type DemoScript } from "./script";

const DATA = '```json agent.data => "temps"';

const draw = `Here's a chart that fills in **while its data streams**. First my code creates the target, \`new StreamedData("temps")\`, and mounts a chart that reads it; then a JSON block streams into it, month by month.

${RUN}
const temps = new StreamedData("temps")
mount({
  title: "Lisbon: average daily high and low (°C)",
  ui: () => (
    <LineChart data={temps.value ?? []} height={260}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="month" />
      <YAxis unit="°" />
      <Tooltip />
      <Legend />
      <Line type="monotone" dataKey="high" name="High" stroke="#ef4444" />
      <Line type="monotone" dataKey="low" name="Low" stroke="#3b82f6" />
    </LineChart>
  ),
})
${END}

${DATA}
[
  { "month": "Jan", "high": 15, "low": 8 },
  { "month": "Feb", "high": 16, "low": 9 },
  { "month": "Mar", "high": 19, "low": 10 },
  { "month": "Apr", "high": 20, "low": 12 },
  { "month": "May", "high": 22, "low": 14 },
  { "month": "Jun", "high": 26, "low": 16 },
  { "month": "Jul", "high": 28, "low": 18 },
  { "month": "Aug", "high": 28, "low": 18 },
  { "month": "Sep", "high": 27, "low": 17 },
  { "month": "Oct", "high": 23, "low": 15 },
  { "month": "Nov", "high": 18, "low": 11 },
  { "month": "Dec", "high": 15, "low": 9 }
]
${END}

Once the whole block has arrived, \`await temps.done\` gives the complete rows:

${RUN}
const months = await temps.done
const warmest = months.reduce((a, b) => (b.high > a.high ? b : a))
const coolest = months.reduce((a, b) => (b.low < a.low ? b : a))
console.log("months:", months.length, "| warmest:", warmest.month, warmest.high, "| coolest:", coolest.month, coolest.low)
${END}`;

const explain = `All **12 months** arrived. **July** is the warmest, with highs around 28 °C (August ties it), and **January** the coolest, with lows around 8 °C.

The chart was mounted *before* the data: it read \`temps.value ?? []\`, so it started empty and gained a point each time another row of the JSON arrived. This reply logs nothing, so it's your turn.`;

export const streamedChart: DemoScript = {
  name: "chart",
  title: "A chart mounted first, then filled by a streaming JSON data block",
  suggestion: "Stream data into a chart",
  keywords: [
    "chart",
    "charts",
    "graph",
    "graphs",
    "plot",
    "visualize",
    "visualise",
    "temperature",
    "weather",
    "json",
    "stream data",
    "streaming data",
    "streamed data",
    "data block",
  ],
  steps: [draw, expecting(/months:\W+12\W+warmest:\W+Jul\W+28\W+coolest:\W+Jan\W+8\b/, explain)],
};
