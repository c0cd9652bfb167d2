// The Paseo adapter (index.server.ts + server/*.ts) loaded with a fake Paseo server and driving
// the real `agent-bridge` binary. Run with `tests/adapter/run.sh`.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  PASEO_CAPABILITIES,
  bridgeBinary,
  bridgeChildren,
  connectRequest,
  isAlive,
  loadAdapter,
  openSessionInput,
  promptInput,
  readPluginJson,
  recorder,
  requireBinary,
  waitUntil,
} from "./harness.mjs";

const DEMO_CAPABILITIES = [
  "prompt.message",
  "prompt.command",
  "prompt.steer",
  "session.configure",
  "session.list",
  "session.persistence",
  "permission",
  "session.can_stop_runtime",
];

/** Loads the adapter for one test and always runs its cleanup. */
function adapterFor(t, options) {
  const adapter = loadAdapter(options);
  t.after(async () => {
    await adapter.cleanup();
    adapter.restoreEnv();
  });
  return adapter;
}

/** Opens `sessionId` on `connection` and returns the open sequence. */
async function openSession(connection, events, sessionId) {
  const requestId = `open-${sessionId}`;
  await connection.send(openSessionInput(sessionId, requestId));
  await events.waitFor(
    (e) => e.type === "session.ready" && e.sessionId === sessionId,
    `session.ready of ${sessionId}`,
  );
  return events.events.filter((e) => e.sessionId === sessionId);
}

test("registers every provider of plugin.json, with its icon, and starts no bridge yet", (t) => {
  const plugin = readPluginJson();
  const adapter = adapterFor(t);
  assert.equal(typeof adapter.cleanup, "function");
  const registered = adapter.server.providers;
  assert.deepEqual(
    registered.map((p) => [p.id, p.label, p.description]),
    plugin.providers.map((p) => [p.id, p.label, p.description]),
  );
  for (const provider of registered) {
    assert.equal(provider.icon, plugin.icon);
    assert.equal(typeof provider.connect, "function");
    assert.equal(typeof provider.checkAvailability, "function");
    assert.equal(typeof provider.getCatalogCacheKey, "function");
    assert.match(provider.id, /^[a-z][a-z0-9._-]*$/);
  }
  assert.deepEqual(bridgeChildren(), [], "the bridge starts lazily");
});

test("demo is registered only with AGENT_BRIDGE_DEMO=1 (Paseo's picker stays clean)", (t) => {
  const all = readPluginJson().providers;
  const demoIds = all.filter((p) => p.agent === "demo").map((p) => p.id);
  assert.deepEqual(demoIds, ["demo"]);
  for (const [value, registered] of [
    [undefined, false],
    ["", false],
    ["0", false],
    ["true", false],
    ["1", true],
  ]) {
    const adapter = loadAdapter({ env: { AGENT_BRIDGE_DEMO: value } });
    adapter.restoreEnv(); // registration is synchronous; nothing reads the env later here
    t.after(() => adapter.cleanup());
    const ids = adapter.server.providers.map((p) => p.id);
    const expected = all.filter((p) => registered || p.agent !== "demo").map((p) => p.id);
    assert.deepEqual(ids, expected, `AGENT_BRIDGE_DEMO=${value}`);
    assert.equal(ids.includes("demo"), registered, `AGENT_BRIDGE_DEMO=${value}`);
  }
});

test("connect negotiates capabilities; connections share one bridge", async (t) => {
  requireBinary();
  const adapter = adapterFor(t);
  const demo = adapter.provider("demo");
  const first = await demo.connect(connectRequest());
  assert.equal(first.version, 1);
  // offered ∩ implemented, in the offered order
  assert.deepEqual(
    first.capabilities,
    PASEO_CAPABILITIES.filter((c) => DEMO_CAPABILITIES.includes(c)),
  );
  const narrow = await demo.connect(connectRequest(["permission", "prompt.message", "x.unknown"]));
  assert.deepEqual(narrow.capabilities, ["permission", "prompt.message"]);
  assert.equal(bridgeChildren().length, 1, "one bridge serves every connection");
  await first.close();
  await narrow.close();
});

test("checkAvailability and getCatalogCacheKey reach the bridge", async (t) => {
  requireBinary();
  const demo = adapterFor(t).provider("demo");
  const availability = await demo.checkAvailability({ scope: "global" }, { timeoutMs: 5000 });
  assert.equal(availability.status, "available");
  const key = await demo.getCatalogCacheKey({ scope: "global" });
  assert.ok(key === undefined || typeof key === "string", `key is a string or undefined: ${key}`);
  assert.equal(await demo.getCatalogCacheKey({ scope: "global" }), key, "the key is stable");
});

test("checkAvailability and getCatalogCacheKey without options send `{}`, which the bridge requires", async (t) => {
  requireBinary();
  const demo = adapterFor(t).provider("demo");
  const availability = await demo.checkAvailability(undefined);
  assert.equal(availability.status, "available");
  const key = await demo.getCatalogCacheKey(undefined);
  assert.ok(key === undefined || typeof key === "string", `key is a string or undefined: ${key}`);
});

test("catalog round trip on demo", async (t) => {
  requireBinary();
  const connection = await adapterFor(t).provider("demo").connect(connectRequest());
  const events = recorder(connection);
  await connection.send({ type: "catalog", requestId: "cat-1" });
  const { catalog } = await events.waitFor(
    (e) => e.type === "catalog" && e.requestId === "cat-1",
    "catalog",
  );
  assert.deepEqual(
    catalog.models.map((m) => m.id),
    ["demo-fast", "demo-smart"],
  );
  assert.equal(catalog.defaultModel, "demo-fast");
  assert.deepEqual(
    catalog.modes.map((m) => m.id),
    ["ask", "auto"],
  );
  assert.equal(catalog.defaultMode, "ask");
  await connection.close();
});

test("a full turn on demo: open, prompt, streamed reply, completed", async (t) => {
  requireBinary();
  const connection = await adapterFor(t).provider("demo").connect(connectRequest());
  const events = recorder(connection);

  const opening = await openSession(connection, events, "s1");
  const types = opening.map((e) => e.type);
  assert.equal(types[0], "session.opened");
  assert.equal(opening[0].requestId, "open-s1");
  assert.ok(types.indexOf("session.config") > 0, `session.config after opened: ${types}`);
  assert.equal(types.at(-1), "session.ready");
  assert.ok(types.indexOf("session.config") < types.indexOf("session.ready"));

  const from = events.events.length;
  await connection.send(promptInput("s1", "m1", "Hello there"));
  const done = await events.waitFor(
    (e) => e.type === "session.turn" && e.state !== "started" && e.sessionId === "s1",
    "terminal session.turn",
  );
  assert.equal(done.state, "completed");
  const turn = events.events.slice(from).filter((e) => e.sessionId === "s1");
  const user = turn.findIndex((e) => e.type === "timeline.item" && e.item.type === "user_message");
  assert.ok(user >= 0, "user_message item");
  assert.equal(turn[user].item.clientMessageId, "m1");
  const results = turn.filter((e) => e.type === "session.prompt_result");
  assert.equal(results.length, 1, "exactly one prompt result");
  assert.equal(results[0].clientMessageId, "m1");
  assert.equal(results[0].result.type, "turn");
  const turnId = results[0].result.turnId;
  const started = turn.findIndex((e) => e.type === "session.turn" && e.state === "started");
  assert.equal(turn[started].turnId, turnId);
  assert.ok(user < turn.indexOf(results[0]) && turn.indexOf(results[0]) < started);
  const snapshots = turn.filter(
    (e) => e.type === "timeline.item" && e.item.type === "assistant_message",
  );
  assert.ok(snapshots.length >= 2, `streamed as several snapshots, got ${snapshots.length}`);
  for (const snapshot of snapshots) assert.equal(snapshot.item.id, `assistant:${turnId}`);
  for (let i = 1; i < snapshots.length; i += 1) {
    assert.ok(
      snapshots[i].item.text.startsWith(snapshots[i - 1].item.text),
      "each snapshot extends the previous one",
    );
  }
  assert.ok(snapshots.at(-1).item.text.length > 0);
  assert.ok(turn.indexOf(snapshots[0]) > started && turn.indexOf(snapshots.at(-1)) < turn.indexOf(done));
  assert.equal(done.turnId, turnId);
  await connection.close();
});

test("send() rejects with the bridge's own message when it refuses admission", async (t) => {
  requireBinary();
  const connection = await adapterFor(t).provider("demo").connect(connectRequest());
  await assert.rejects(connection.send(promptInput("no-such-session", "m1", "hi")), (error) => {
    assert.ok(error instanceof Error);
    assert.equal(error.code, -32602, `code of: ${error.message}`);
    assert.match(error.message, /no-such-session/, "the bridge's message names the session");
    assert.doesNotMatch(error.message, /provider\/send failed/);
    return true;
  });
  // The connection stays usable after a refusal.
  const events = recorder(connection);
  await connection.send({ type: "catalog", requestId: "after" });
  await events.waitFor((e) => e.type === "catalog" && e.requestId === "after", "catalog");
  await connection.close();
});

test("a bridge crash fails the open sessions; the next connect starts a fresh bridge", async (t) => {
  requireBinary();
  const demo = adapterFor(t).provider("demo");
  const connection = await demo.connect(connectRequest());
  const events = recorder(connection);
  await openSession(connection, events, "crash-1");
  await openSession(connection, events, "crash-2");
  // `SLOW` keeps the demo's turn streaming for seconds: the crash lands mid-turn.
  await connection.send(promptInput("crash-1", "slow-1", "SLOW please"));
  const started = await events.waitFor(
    (e) => e.type === "session.turn" && e.state === "started" && e.sessionId === "crash-1",
    "turn started",
  );
  const [pid] = bridgeChildren();
  assert.ok(pid, "the bridge runs as a child");

  process.kill(pid, "SIGKILL");
  const failed = await events.waitFor(
    (e) => e.type === "session.runtime_failed" && e.sessionId === "crash-1",
    "session.runtime_failed",
  );
  assert.match(failed.error.message, /SIGKILL/);
  assert.match(failed.error.message, /agent-bridge exited unexpectedly/);
  assert.match(failed.error.message, /last stderr/, "carries the bridge's last stderr lines");
  await events.waitFor(
    (e) => e.type === "session.runtime_failed" && e.sessionId === "crash-2",
    "session.runtime_failed of the idle session",
  );
  // The started turn gets its terminal event before the session fails.
  const turnEnd = events.events.findIndex(
    (e) => e.type === "session.turn" && e.turnId === started.turnId && e.state !== "started",
  );
  assert.ok(turnEnd >= 0, "a terminal session.turn for the interrupted turn");
  assert.equal(events.events[turnEnd].state, "failed");
  assert.ok(turnEnd < events.events.indexOf(failed));
  await assert.rejects(connection.send(promptInput("crash-1", "m2", "still there?")), (error) => {
    assert.match(error.message, /connection is gone/);
    assert.match(error.message, /SIGKILL/);
    return true;
  });
  await connection.close(); // closing a dead connection is a no-op

  const fresh = await demo.connect(connectRequest());
  const children = bridgeChildren();
  assert.equal(children.length, 1);
  assert.notEqual(children[0], pid, "a new bridge process");
  const freshEvents = recorder(fresh);
  await fresh.send({ type: "catalog", requestId: "fresh" });
  await freshEvents.waitFor((e) => e.type === "catalog" && e.requestId === "fresh", "catalog");
  await fresh.close();
});

test("cleanup shuts the bridge down and leaves no process", async (t) => {
  requireBinary();
  const adapter = adapterFor(t);
  const connection = await adapter.provider("demo").connect(connectRequest());
  const events = recorder(connection);
  await openSession(connection, events, "bye");
  await connection.send(promptInput("bye", "slow-bye", "SLOW goodbye"));
  await events.waitFor((e) => e.type === "session.turn" && e.state === "started", "turn started");
  const [pid] = bridgeChildren();
  assert.ok(pid);
  const started = Date.now();
  await adapter.cleanup();
  assert.equal(isAlive(pid), false, "the bridge is gone when cleanup resolves");
  assert.ok(Date.now() - started < 4000, "within the 1.5 s + 1.5 s escalation");
  assert.deepEqual(bridgeChildren(), []);
  assert.ok(!events.events.some((e) => e.type === "session.runtime_failed"), "a requested stop is no crash");
  // What the bridge emits while it winds down still reaches the listeners.
  assert.ok(
    events.events.some((e) => e.type === "session.turn" && e.state !== "started"),
    "the active turn ended",
  );
  assert.ok(events.events.some((e) => e.type === "session.closed" && e.sessionId === "bye"));
  await assert.rejects(adapter.provider("demo").connect(connectRequest()), /stopping/);
  await assert.rejects(connection.send({ type: "catalog", requestId: "late" }), /closed/);
});

test("a missing binary makes the provider unrunnable with a clear diagnostic", async (t) => {
  const adapter = adapterFor(t, { env: { AGENT_BRIDGE_BIN: "/nonexistent/agent-bridge" } });
  const demo = adapter.provider("demo");
  const availability = await demo.checkAvailability({ scope: "global" });
  assert.equal(availability.status, "unrunnable");
  assert.match(availability.diagnostic, /\/nonexistent\/agent-bridge/);
  assert.match(availability.diagnostic, /ENOENT/);
  await assert.rejects(demo.connect(connectRequest()), /could not start/);
  await waitUntil(() => bridgeChildren().length === 0, "no bridge left");
});

test("stderr goes to console.error line by line; non-JSON stdout lines are logged and skipped", async (t) => {
  requireBinary();
  // A wrapper that prints noise on stdout, then becomes the real binary.
  const dir = mkdtempSync(path.join(tmpdir(), "agent-bridge-noisy-"));
  const wrapper = path.join(dir, "agent-bridge");
  writeFileSync(
    wrapper,
    `#!/bin/sh\necho 'this is not JSON'\necho '{"jsonrpc":"1.0"}'\nexec '${bridgeBinary}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const logged = [];
  const original = console.error;
  console.error = (...args) => logged.push(args.join(" "));
  t.after(() => {
    console.error = original;
  });
  const adapter = adapterFor(t, { env: { AGENT_BRIDGE_BIN: wrapper, AGENT_BRIDGE_LOG: "info" } });
  const connection = await adapter.provider("demo").connect(connectRequest());
  const events = recorder(connection);
  await connection.send({ type: "catalog", requestId: "noisy" });
  await events.waitFor((e) => e.type === "catalog" && e.requestId === "noisy", "catalog");
  await adapter.cleanup();
  console.error = original;
  assert.ok(logged.some((l) => /ignored non-JSON line on bridge stdout: this is not JSON/.test(l)));
  assert.ok(logged.some((l) => /ignored non-JSON-RPC line/.test(l)));
  const bridgeLines = logged.filter((l) => l.startsWith("[agent-bridge] ") && !/ignored|started/.test(l));
  assert.ok(bridgeLines.length > 0, `the bridge's stderr reached console.error: ${logged.join("\n")}`);
  for (const line of bridgeLines) assert.doesNotMatch(line, /\n/, "one call per line");
});
