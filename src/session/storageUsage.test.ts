import { describe, expect, it } from "vitest";
import { describeUsage } from "./storageUsage";

describe("describeUsage (the storage-full banner)", () => {
  it("says how much the app uses and what the browser allows", () => {
    expect(describeUsage({ usage: 50_537_472, quota: 52_428_800 })).toBe(
      "Livemark uses 48.2 MB of the 50.0 MB this browser allows it",
    );
    expect(describeUsage({ usage: 512, quota: 3 * 1024 ** 3 })).toBe(
      "Livemark uses 512 bytes of the 3.0 GB this browser allows it",
    );
    expect(describeUsage({ usage: 300 * 1024 * 1024 })).toBe("Livemark uses 300 MB");
  });

  it("says nothing when the browser gives no usage", () => {
    expect(describeUsage(undefined)).toBeUndefined();
    expect(describeUsage({ quota: 1024 })).toBeUndefined();
  });
});
