/**
 * Streaming cost against the reply's length (issue 34 §2), in CPU time:
 * app.bench's long reply (prose, lists, code that runs, plain fences) cut at
 * 10k, 50k and 200k characters, each streamed from the mock LLM at 2,000
 * tokens/s (100 tokens every 50 ms) into a fresh page of the built app.
 * - `host.worstFrameCpuMs200k` (budget ≤ 16): the most main-thread CPU time
 *   between two animation frames over the 200k-character stream, from a
 *   Chromium trace (tasks' thread time, `tdur`, between two
 *   `FireAnimationFrame`s): what the worst frame costs with the thread never
 *   descheduled, so a loaded machine inflates it far less than a wall time.
 *   `host.worstFrameCpuMs10k` and `…50k` show how it grows with the reply.
 * - `host.cpuMsPer1kTokens200k` (and `…10k`, `…50k`): main-thread CPU time
 *   (CDP `Performance.getMetrics` ThreadTime) over the stream per 1,000
 *   tokens. (`host.cpuMsPer1kTokens`, the budgeted key, is app.bench's 20k-token
 *   stream measured the same way.)
 */
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";
import { join } from "node:path";
import { DIST_DIR, ROOT_DIR, launchBrowser, serveStatic } from "../e2e/harness";
import { longReply, streamReply } from "./app.bench";

/** app.bench's reply cut to its first `characters` characters (whole tokens). */
export function replyOfLength(characters: number): string[] {
  const tokens: string[] = [];
  let length = 0;
  // ~4 characters per token: generate enough, then cut.
  for (const token of longReply(Math.ceil(characters / 2))) {
    if (length >= characters) break;
    tokens.push(token);
    length += token.length;
  }
  return tokens;
}

const SIZES: [string, number][] = [
  ["10k", 10_000],
  ["50k", 50_000],
  ["200k", 200_000],
];

export async function run(): Promise<Record<string, number>> {
  if (!existsSync(join(DIST_DIR, "index.html")) || !existsSync(join(DIST_DIR, "generated", "realm.js")))
    execSync("npm run build", { cwd: ROOT_DIR, stdio: "inherit" });
  const only = process.env.STREAM_SIZES?.split(",");
  const results: Record<string, number> = {};
  const [browser, app] = await Promise.all([launchBrowser(), serveStatic()]);
  try {
    for (const [label, characters] of SIZES) {
      if (only && !only.includes(label)) continue;
      const tokens = replyOfLength(characters);
      const figures = await streamReply(browser, app.url, tokens, 100, false, true, true);
      const perThousand = Math.round((figures.threadMs / (tokens.length / 1000)) * 10) / 10;
      results[`host.worstFrameCpuMs${label}`] = Math.round(figures.cpu!.longestBetweenFrames * 10) / 10;
      results[`host.cpuMsPer1kTokens${label}`] = perThousand;
      console.log(
        `${label} characters (${tokens.length} tokens) at 2,000 tok/s in ${figures.seconds.toFixed(1)} s: ` +
          `worst frame ${figures.cpu!.longestBetweenFrames.toFixed(1)} ms CPU (longest task ${figures.cpu!.longestTask.toFixed(1)} ms CPU); ` +
          `CPU ${perThousand} ms per 1k tokens (task time ${(figures.taskMs / (tokens.length / 1000)).toFixed(1)}); ` +
          `wall: longest frame gap ${figures.longestGap.toFixed(0)} ms, gaps over 50 ms ${figures.gapsOver50}`,
      );
    }
  } finally {
    await Promise.all([browser.close(), app.close()]);
  }
  return results;
}
