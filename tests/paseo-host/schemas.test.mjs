// Self-test of the emulator's host schemas: each generation's ProviderEventSchema takes good
// events and refuses known-bad ones (so a run that reports zero refusals means something), and
// the two generations differ where the real hosts differ.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { repoRoot } from "./harness.mjs";
import * as v09 from "./host/schemas-0.9.mjs";
import * as newest from "./host/schemas-newest.mjs";

const GENERATIONS = [v09, newest];

const config = (extra) => ({
  type: "session.config",
  sessionId: "s",
  config: { model: "m", models: [{ id: "m", label: "M" }], modes: [], thinkingOptions: [], ...extra },
});
const tool = (status, error) => ({
  type: "timeline.item",
  sessionId: "s",
  item: { type: "tool_call", id: "t", callId: "c", name: "Bash", detail: { type: "shell", command: "ls" }, status, error },
});

const GOOD = [
  { type: "catalog", requestId: "r", catalog: { models: [], modes: [] } },
  { type: "session.opened", requestId: "r", sessionId: "s", capabilities: ["prompt.message"], restoration: "core", cwd: "/w" },
  { type: "session.ready", requestId: "r", sessionId: "s" },
  config({ settings: [] }),
  { type: "session.prompt_result", sessionId: "s", clientMessageId: "m", result: { type: "turn", turnId: "t" } },
  { type: "session.turn", sessionId: "s", turnId: "t", state: "completed" },
  tool("running", null),
  tool("failed", { message: "boom" }),
  { type: "session.notice", sessionId: "s", notice: { id: "n", severity: "warning", title: "T" } },
  { type: "sessions", requestId: "r", sessions: [{ persistence: { version: 1, data: null }, cwd: "/w" }] },
];

const BAD = [
  ["an unknown event type", { type: "session.teleported", sessionId: "s" }],
  ["an empty session id", { type: "session.ready", sessionId: "" }],
  ["a tool call in an unknown status", tool("exploded", null)],
  ["a completed tool call with an error", tool("completed", { message: "x" })],
  ["a prompt preview over 160 characters", { type: "sessions", requestId: "r", sessions: [{ persistence: { version: 1, data: null }, cwd: "/w", firstPromptPreview: "x".repeat(161) }] }],
  ["a turn in an unknown state", { type: "session.turn", sessionId: "s", turnId: "t", state: "paused" }],
  ["a notice of an unknown severity", { type: "session.notice", sessionId: "s", notice: { id: "n", severity: "loud", title: "T" } }],
  ["a persistence version below 0", { type: "session.persistence", sessionId: "s", persistence: { version: -1, data: 1 } }],
];

for (const sdk of GENERATIONS) {
  test(`${sdk.GENERATION}: good events pass`, () => {
    for (const event of GOOD) {
      const parsed = sdk.ProviderEventSchema.safeParse(event);
      assert.ok(parsed.success, `${JSON.stringify(event)}: ${parsed.error?.message}`);
    }
  });

  test(`${sdk.GENERATION}: known-bad events are refused`, () => {
    for (const [what, event] of BAD) {
      assert.equal(sdk.ProviderEventSchema.safeParse(event).success, false, what);
    }
  });

  test(`${sdk.GENERATION}: inputs are strict`, () => {
    const open = {
      type: "session.open",
      requestId: "r",
      sessionId: "s",
      config: { cwd: "/w", env: {}, mcpServers: {}, settings: {}, persist: false },
      history: "skip",
    };
    assert.ok(sdk.ProviderInputSchema.safeParse(open).success);
    assert.equal(sdk.ProviderInputSchema.safeParse({ ...open, extra: 1 }).success, false);
    assert.equal(
      sdk.ProviderInputSchema.safeParse({ ...open, config: { ...open.config, colour: "red" } }).success,
      false,
    );
  });
}

test("0.9 requires the legacy settings and drops controls; newest takes either style", () => {
  const styles = config({ controls: [{ type: "toggle", key: "fast", label: "Fast", defaultValue: false }], providerOptions: { fast: true } });
  const without = v09.ProviderEventSchema.safeParse(styles);
  assert.equal(without.success, false, "0.9 refuses a config without settings");
  assert.deepEqual(without.error.issues[0].path, ["config", "settings"]);
  const both = v09.ProviderEventSchema.parse(config({ ...styles.config, settings: [] }));
  assert.equal(both.config.controls, undefined, "0.9 strips controls");
  assert.deepEqual(both.config.settings, []);

  assert.ok(newest.ProviderEventSchema.safeParse(styles).success, "newest: controls + providerOptions");
  assert.ok(newest.ProviderEventSchema.safeParse(config({ settings: [] })).success, "newest: legacy settings");
  assert.equal(newest.ProviderEventSchema.safeParse(config({})).success, false, "newest: neither style");
  assert.deepEqual(newest.ProviderEventSchema.parse(styles).config.controls, styles.config.controls);
});

test("only newest knows can_stop_runtime, launch and status", () => {
  const stop = { type: "session.can_stop_runtime", requestId: "r", sessionId: "s", canStop: true };
  assert.equal(v09.ProviderEventSchema.safeParse(stop).success, false);
  assert.ok(newest.ProviderEventSchema.safeParse(stop).success);
  const launch = { versions: [1], capabilities: [], launch: { command: "claude", args: [], env: {} } };
  assert.equal(v09.ProviderConnectRequestSchema.safeParse(launch).success, false);
  assert.ok(newest.ProviderConnectRequestSchema.safeParse(launch).success);
  assert.ok(!v09.PROVIDER_CAPABILITIES.includes("session.can_stop_runtime"));
  assert.ok(newest.PROVIDER_CAPABILITIES.includes("session.can_stop_runtime"));
  assert.equal(v09.ProviderStatusSchema, undefined);
  assert.equal(newest.ProviderStatusSchema.safeParse({ status: "available" }).success, true);
  assert.equal(newest.ProviderStatusSchema.safeParse({ status: "fine" }).success, false);
});

test("paseo-plugin.json requires the oldest Paseo the emulator proves", () => {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, "paseo-plugin.json"), "utf8"));
  assert.equal(manifest.requirements.paseo, `>=${v09.PASEO_VERSION}`);
});
