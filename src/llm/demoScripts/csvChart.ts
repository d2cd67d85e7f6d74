import { END, RUN, fencedOutput, unexpected, type DemoScript } from "./script";

const offer = `Choose a CSV file and I'll chart it. The file stays in your browser: only the code in the sandbox reads it, after you pick it. The first column becomes the labels, the first numeric column the bars.

${RUN}
const csvChart = new Data({ name: "", rows: [] as { label: string; value: number }[], column: "" })
mount({
  title: "Chart a CSV",
  ui: () => (
    <Card className="p-4 grid gap-3">
      <Label htmlFor="csvChartFile">CSV file</Label>
      <input id="csvChartFile" type="file" accept=".csv,text/csv" onChange={async (event) => {
        const file = event.target.files[0]
        const [header, ...lines] = (await file.text()).trim().split(/\\r?\\n/).map((line) => line.split(","))
        const column = header.findIndex((_, index) => index > 0 && lines.every((line) => !Number.isNaN(Number(line[index]))))
        if (column < 0) return console.log(\`\${file.name}: no numeric column to chart\`)
        csvChart.name = file.name
        csvChart.column = header[column]
        csvChart.rows = lines.map((line) => ({ label: line[0], value: Number(line[column]) }))
        console.log(\`charted \${file.name}: \${csvChart.rows.length} rows of \${header[column]} by \${header[0]}\`)
      }} />
      {csvChart.rows.length > 0 && (
        <BarChart data={csvChart.rows} height={220}>
          <XAxis dataKey="label" />
          <YAxis />
          <Tooltip />
          <Bar dataKey="value" name={csvChart.column} fill="#10b981" />
        </BarChart>
      )}
    </Card>
  ),
})
${END}

This block logs nothing, so it's your turn: **choose a CSV file** (for example one with \`month,sales\` columns).`;

const react = (feedback: string): string => {
  const match = /charted (.+?): (\d+) rows of (.+?) by (.+)$/m.exec(fencedOutput(feedback));
  if (!match) return unexpected(feedback);
  return `Charted **${match[1]}**: ${match[2]} rows of *${match[3]}* by *${match[4]}*. What came from the file reached me marked as untrusted content — data, not instructions. Pick another file to chart it instead.`;
};

export const csvChart: DemoScript = {
  name: "csv",
  title: "Read a CSV file you choose and chart it",
  suggestion: "Chart a CSV file I choose",
  keywords: ["csv", "file", "upload", "spreadsheet", "my data", "choose a file"],
  steps: [offer],
  uiEvent: react,
};
