// The adapter's limits seen from Paseo's side: an input over the transport's 16 MiB line limit
// (the real binary, demo provider), and requests a bridge answers late or never (a fake bridge,
// fake-bridge.mjs, with short timeouts).

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  adapterModule,
  bridgeChildren,
  captureConsoleError,
  connectRequest,
  here,
  isAlive,
  loadAdapter,
  openSessionInput,
  promptInput,
  recorder,
  requireBinary,
  settlesAtOnce,
  waitUntil,
} from "./harness.mjs";

/** Loads the adapter for one test and always runs its cleanup. */
function adapterFor(t, options) {
  const adapter = loadAdapter(options);
  t.after(async () => {
    await adapter.cleanup();
    adapter.restoreEnv();
  });
  return adapter;
}

/** A prompt carrying a base64 "image" of `bytes` characters. */
function imagePrompt(sessionId, clientMessageId, bytes) {
  const prompt = promptInput(sessionId, clientMessageId, "what is in this picture?");
  prompt.prompt.input.content.push({ type: "image", mimeType: "image/png", data: "A".repeat(bytes) });
  return prompt;
}

test("a prompt over 16 MiB is refused at once with its size and the limit; the next one runs", async (t) => {
  requireBinary();
  const logged = captureConsoleError(t);
  const connection = await adapterFor(t).provider("demo").connect(connectRequest());
  const events = recorder(connection);
  await connection.send(openSessionInput("big"));
  await events.waitFor((e) => e.type === "session.ready" && e.sessionId === "big", "session.ready");

  const refused = connection.send(imagePrompt("big", "huge", 17 * 1024 * 1024));
  assert.ok(await settlesAtOnce(refused), "refused without waiting for the bridge");
  await assert.rejects(refused, (error) => {
    assert.match(error.message, /^This prompt is too large for agent-bridge/);
    assert.match(error.message, /17\.0 MiB \(\d+ bytes\) as sent/, "names the size");
    assert.match(error.message, /16 MiB \(16777216 bytes\) limit/, "names the limit");
    assert.match(error.message, /Nothing was sent/);
    return true;
  });

  await connection.send(promptInput("big", "small", "Hello after the big one"));
  const done = await events.waitFor(
    (e) => e.type === "session.turn" && e.state !== "started" && e.sessionId === "big",
    "terminal session.turn",
  );
  assert.equal(done.state, "completed");
  const results = events.events.filter((e) => e.type === "session.prompt_result");
  assert.deepEqual(
    results.map((e) => e.clientMessageId),
    ["small"],
    "the refused prompt was never admitted, so it has no prompt result",
  );
  // Had the line reached the bridge, its `id: null` answer would precede the answers above.
  assert.ok(!logged.some((l) => /could not read a line|exceeds the 16 MiB limit/.test(l)), logged.join("\n"));
  await connection.close();
});

/** AGENT_BRIDGE_BIN for the fake bridge: a wrapper named like the real binary. */
function fakeBridge() {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-bridge-fake-"));
  const wrapper = path.join(dir, "agent-bridge");
  const script = path.join(here, "fake-bridge.mjs");
  writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${script}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

/** Shortens some methods' timeouts (the adapter's table) for one test. */
function shortTimeouts(t, timeouts) {
  const table = adapterModule("request-timeouts").REQUEST_TIMEOUTS_MS;
  const saved = { ...table };
  Object.assign(table, timeouts);
  t.after(() => Object.assign(table, saved));
}

test("a request the bridge never answers times out naming method and time; a late answer is ignored", async (t) => {
  const logged = captureConsoleError(t);
  shortTimeouts(t, { "provider/send": 500 });
  const adapter = adapterFor(t, {
    env: { AGENT_BRIDGE_BIN: fakeBridge(), FAKE_BRIDGE_LATE_MS: "1500" },
  });
  const connection = await adapter.provider("demo").connect(connectRequest());

  await assert.rejects(connection.send({ type: "catalog", requestId: "never" }), (error) => {
    assert.match(error.message, /did not answer provider\/send within 500 ms/);
    return true;
  });
  await assert.rejects(connection.send({ type: "catalog", requestId: "late" }), /provider\/send within 500 ms/);
  await waitUntil(
    () => logged.some((l) => /ignored a late answer to provider\/send/.test(l)),
    "the late answer is logged",
  );
  // The same connection and bridge still answer.
  await connection.send({ type: "catalog", requestId: "now" });
  await connection.close();
});

test("a connection answered after its timeout is closed again", async (t) => {
  const logged = captureConsoleError(t);
  shortTimeouts(t, { "provider/connect": 500 });
  const adapter = adapterFor(t, {
    env: { AGENT_BRIDGE_BIN: fakeBridge(), FAKE_BRIDGE_CONNECT_DELAY_MS: "1500" },
  });
  await assert.rejects(
    adapter.provider("demo").connect(connectRequest()),
    /did not answer provider\/connect within 500 ms/,
  );
  await waitUntil(
    () => logged.some((l) => /fake bridge got provider\/close c1/.test(l)),
    "the late connection c1 is closed",
  );
});

test("a bridge that never answers initialize is unrunnable and stopped (timeouts set by env)", async (t) => {
  const logged = captureConsoleError(t);
  const adapter = adapterFor(t, {
    env: { AGENT_BRIDGE_BIN: fakeBridge(), AGENT_BRIDGE_REQUEST_TIMEOUT_MS: "300", FAKE_BRIDGE_MUTE: "1" },
  });
  const availability = await adapter.provider("demo").checkAvailability({ scope: "global" });
  assert.equal(availability.status, "unrunnable");
  assert.match(availability.diagnostic, /did not answer initialize within 300 ms/);
  const started = logged.map((l) => /started .* serve \(pid (\d+)\)/.exec(l)).find(Boolean);
  assert.ok(started, "the fake bridge was started");
  await waitUntil(() => !isAlive(Number(started[1])), "the mute bridge is stopped");
  assert.deepEqual(bridgeChildren("fake-bridge.mjs"), []);
});
