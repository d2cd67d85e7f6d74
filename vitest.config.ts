import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          // Property tests run thousands of cases; a loaded 2-core machine needs headroom.
          testTimeout: 30_000,
          include: [
            "src/**/*.test.ts",
            "src/**/*.test.tsx",
            "workers/**/*.test.ts",
            "workers/**/*.test.tsx",
            "bench/**/*.test.ts",
            "test/**/*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        test: {
          name: "e2e",
          include: ["e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Files run side by side, each in its own worker with its own Chromium, servers on free
          // ports of 127.0.0.1 and a context per test (e2e/fixture.ts): one at a time by default
          // (LIVEMARK_E2E_WORKERS=2: two). `npm test` runs the files with wall-clock budgets alone and
          // the rest two side by side (scripts/test.mjs SERIAL_E2E).
          fileParallelism: true,
          maxWorkers: Number(process.env.LIVEMARK_E2E_WORKERS ?? 1),
          // No retries: the tests wait on the app's signals (e2e/fixture.ts, src/testProbe.ts), not
          // on clocks, so a failure is a failure.
          retry: 0,
        },
      },
    ],
  },
});
