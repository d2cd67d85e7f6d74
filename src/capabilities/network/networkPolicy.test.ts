import { describe, expect, it } from "vitest";
import {
  DEFAULT_NETWORK_POLICY,
  allowHost,
  answerAsk,
  covers,
  decideNetwork,
  fingerprint,
  revokeHost,
  spendGrant,
  type NetworkAction,
  type NetworkPolicyState,
} from "./networkPolicy";

const get = (url: string, extra: Partial<NetworkAction> = {}): NetworkAction => ({
  method: "GET",
  url,
  bodyHash: "",
  bodySize: 0,
  ...extra,
});
const state = (patch: Partial<NetworkPolicyState> = {}): NetworkPolicyState => ({
  ...DEFAULT_NETWORK_POLICY,
  ...patch,
});

describe("decideNetwork", () => {
  it("asks by default, naming the host with its port", () => {
    expect(decideNetwork(DEFAULT_NETWORK_POLICY, get("http://127.0.0.1:8080/data.json")).decision).toEqual({
      kind: "ask",
      host: "127.0.0.1:8080",
    });
  });

  it("denies everything when the network is off, with an audit entry", () => {
    const { decision, audit } = decideNetwork(state({ mode: "off", hosts: ["a.example"] }), get("https://a.example/x"));
    expect(decision).toMatchObject({ kind: "deny", reason: "off" });
    expect(audit).toMatchObject({
      capability: "network",
      method: "GET",
      url: "https://a.example/x",
      decision: "denied",
    });
  });

  it("allows an allowed host and asks for another one (localhost is not 127.0.0.1, ports differ)", () => {
    const policy = state({ hosts: ["127.0.0.1:8080"] });
    expect(decideNetwork(policy, get("http://127.0.0.1:8080/a")).decision).toEqual({
      kind: "allow",
      basis: "host",
      host: "127.0.0.1:8080",
    });
    expect(decideNetwork(policy, get("http://127.0.0.1:8080/a")).audit?.decision).toBe("allowed-host");
    expect(decideNetwork(policy, get("http://localhost:8080/a")).decision.kind).toBe("ask");
    expect(decideNetwork(policy, get("http://127.0.0.1:9090/a")).decision.kind).toBe("ask");
  });

  it("allows every host when the network is allowed", () => {
    expect(decideNetwork(state({ mode: "allowed" }), get("https://anything.example/")).decision).toEqual({
      kind: "allow",
      basis: "session",
    });
  });

  it("strict mode asks even on an allowed host and with the network allowed", () => {
    expect(decideNetwork(state({ strict: true, hosts: ["a.example"] }), get("https://a.example/")).decision.kind).toBe(
      "ask",
    );
    expect(decideNetwork(state({ strict: true, mode: "allowed" }), get("https://a.example/")).decision.kind).toBe(
      "ask",
    );
    expect(decideNetwork(state({ strict: true, mode: "off" }), get("https://a.example/")).decision.kind).toBe("deny");
  });

  it("refuses URLs that are not absolute http(s) or carry credentials", () => {
    for (const url of [
      "/relative",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "data:text/plain,hi",
      "https://user:pw@a.example/",
    ]) {
      expect(decideNetwork(state({ mode: "allowed" }), get(url)).decision).toMatchObject({
        kind: "deny",
        reason: "invalid-url",
      });
    }
  });

  it("covers remote images only for hosts the capability already allows, never in strict mode", () => {
    expect(covers(DEFAULT_NETWORK_POLICY, "https://img.example/a.png")).toBe(false);
    expect(covers(state({ hosts: ["img.example"] }), "https://img.example/a.png")).toBe(true);
    expect(covers(state({ hosts: ["img.example"], strict: true }), "https://img.example/a.png")).toBe(false);
    expect(covers(state({ mode: "allowed" }), "https://img.example/a.png")).toBe(true);
    expect(covers(state({ mode: "off", hosts: ["img.example"] }), "https://img.example/a.png")).toBe(false);
  });
});

describe("answers and one-time grants", () => {
  const action = get("https://a.example/data?x=1");

  it("Deny refuses the call with a message that says the person denied it", () => {
    const { decision, audit } = answerAsk(DEFAULT_NETWORK_POLICY, action, "deny", "g1");
    expect(decision).toMatchObject({ kind: "deny", reason: "person" });
    expect(decision.kind === "deny" && decision.message).toMatch(/person denied/);
    expect(audit?.decision).toBe("denied");
  });

  it("Always allow this host adds the host for later calls", () => {
    const answered = answerAsk(DEFAULT_NETWORK_POLICY, action, "host", "g1");
    expect(answered.decision).toEqual({ kind: "allow", basis: "host", host: "a.example" });
    expect(decideNetwork(answered.state, get("https://a.example/other")).decision.kind).toBe("allow");
    expect(decideNetwork(revokeHost(answered.state, "a.example"), get("https://a.example/other")).decision.kind).toBe(
      "ask",
    );
  });

  it("Allow once issues a grant that is spent by exactly one call", () => {
    const answered = answerAsk(DEFAULT_NETWORK_POLICY, action, "once", "g1");
    expect(answered.decision).toEqual({ kind: "allow", basis: "once", grantId: "g1" });
    // The grant does not make the host allowed.
    expect(decideNetwork(answered.state, action).decision.kind).toBe("ask");
    const first = spendGrant(answered.state, "g1", action);
    expect(first.ok).toBe(true);
    expect(first.audit.decision).toBe("allowed-once");
    const replay = spendGrant(first.state, "g1", action);
    expect(replay).toMatchObject({ ok: false, reason: "spent" });
    expect(replay.audit.decision).toBe("denied");
  });

  it("two identical racing calls on one Allow once: one passes, the other is refused", () => {
    const { state: granted } = answerAsk(DEFAULT_NETWORK_POLICY, action, "once", "g1");
    // Both calls saw the same state; the broker applies their spends one after the other.
    const a = spendGrant(granted, "g1", { ...action });
    const b = spendGrant(a.state, "g1", { ...action });
    expect([a.ok, b.ok]).toEqual([true, false]);
  });

  it("a grant never authorises another URL, method or body", () => {
    const { state: granted } = answerAsk(DEFAULT_NETWORK_POLICY, action, "once", "g1");
    for (const other of [
      get("https://a.example/data?x=2"),
      get("https://a.example/data?x=1", { method: "POST" }),
      get("https://a.example/data?x=1", { bodyHash: "ab12", bodySize: 4 }),
      get("https://b.example/data?x=1"),
    ]) {
      const result = spendGrant(granted, "g1", other);
      expect(result).toMatchObject({ ok: false, reason: "mismatch" });
      // A refused attempt does not use the grant up: the call it was issued for still passes.
      expect(spendGrant(result.state, "g1", action).ok).toBe(true);
    }
  });

  it("a forged grant id is refused", () => {
    const { state: granted } = answerAsk(DEFAULT_NETWORK_POLICY, action, "once", "g1");
    expect(spendGrant(granted, "g2", action)).toMatchObject({ ok: false, reason: "unknown" });
    expect(spendGrant(DEFAULT_NETWORK_POLICY, "g1", action)).toMatchObject({ ok: false, reason: "unknown" });
  });

  it("fingerprints ignore the fragment and method case, nothing else", () => {
    expect(fingerprint(get("https://a.example/x#frag"))).toBe(fingerprint(get("https://a.example/x")));
    expect(fingerprint(get("https://a.example/x", { method: "get" }))).toBe(fingerprint(get("https://a.example/x")));
    expect(fingerprint(get("https://a.example/x?q"))).not.toBe(fingerprint(get("https://a.example/x")));
  });

  it("allowHost is idempotent", () => {
    const once = allowHost(DEFAULT_NETWORK_POLICY, "a.example");
    expect(allowHost(once, "a.example").hosts).toEqual(["a.example"]);
  });
});
