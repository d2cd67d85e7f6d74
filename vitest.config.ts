import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          // Property tests run thousands of cases; a loaded 2-core machine needs headroom.
          testTimeout: 30_000,
          include: ["src/**/*.test.ts", "src/**/*.test.tsx", "workers/**/*.test.ts", "workers/**/*.test.tsx", "bench/**/*.test.ts", "test/**/*.test.ts"],
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
          fileParallelism: false,
          // A browser test that fails is run again, up to twice, with its hooks (a fresh page).
          // On a loaded 2-core machine a timing-sensitive test can miss a frame once; a behaviour
          // that is broken fails all three runs. scripts/test.mjs names every test that passed only
          // on a retry, with its first failure, so a flaky test is seen rather than hidden.
          retry: 2,
        },
      },
    ],
  },
});
