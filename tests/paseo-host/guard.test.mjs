// The adapter's event guard inside the emulated host, with a scripted bridge that sends events a
// Paseo host refuses: with the host's SDK served, nothing is refused (the legacy `settings` is
// repaired on 0.9, a bad tool call becomes a notice naming the field, a bad turn state a failed
// turn) and the connection survives; without the SDK the same events close the connection and
// fail every session on it, as the real host does.

import assert from "node:assert/strict";
import { test } from "node:test";
import path from "node:path";
import { GENERATIONS, here, nodeWrapper, startHost, tempDir, waitEvent } from "./harness.mjs";

const scripted = nodeWrapper(path.join(here, "fixtures/scripted-bridge.mjs"));

function openInput(sessionId) {
  return {
    type: "session.open",
    requestId: `open-${sessionId}`,
    sessionId,
    config: { cwd: tempDir("guard-cwd-"), env: {}, mcpServers: {}, settings: {}, persist: false },
    history: "skip",
  };
}

function prompt(sessionId, clientMessageId, text) {
  return {
    type: "session.prompt",
    sessionId,
    prompt: { clientMessageId, delivery: "auto", input: { type: "message", content: [{ type: "text", text }] } },
  };
}

async function connect(host) {
  return host.connect("demo", { versions: [1], capabilities: ["prompt.message"] });
}

for (const generation of GENERATIONS) {
  test(`${generation}: the guard keeps a connection alive through events the host would refuse`, async (t) => {
    const host = await startHost(t, { generation, bin: scripted });
    const connection = await connect(host);
    await connection.send(openInput("s"));
    const config = await waitEvent(connection, (e) => e.type === "session.config", "session.config");
    await waitEvent(connection, (e) => e.type === "session.ready", "session.ready");
    if (generation === "0.9") assert.deepEqual(config.config.settings, [], "repaired with settings: []");
    else assert.equal(config.config.settings, undefined, "newest: controls only");

    await connection.send(prompt("s", "m1", "a bad tool call"));
    const notice = await waitEvent(connection, (e) => e.type === "session.notice", "the notice");
    assert.match(notice.notice.description, /timeline\.item \(tool_call\): item\.status/);
    const done = await waitEvent(connection, (e) => e.type === "session.turn" && e.turnId === "t1" && e.state !== "started", "turn t1 end");
    assert.equal(done.state, "completed");

    await connection.send(prompt("s", "m2", "a bad turn state"));
    const failed = await waitEvent(connection, (e) => e.type === "session.turn" && e.turnId === "t2" && e.state !== "started", "turn t2 end");
    assert.equal(failed.state, "failed", JSON.stringify(failed));
    assert.match(failed.error.message, /state/);

    assert.deepEqual(connection.stats.refused, [], "no event refused");
    assert.equal(connection.stats.failure, null, "the connection is alive");
    assert.ok(!connection.events.some((e) => e.type === "session.runtime_failed"));
    const log = host.log();
    assert.match(log, /Paseo would refuse timeline\.item \(tool_call\) \(item\.status: /, "the warning names the field");
    if (generation === "0.9") assert.match(log, /Paseo would refuse session\.config \(config\.settings: .*repaired/);
    await connection.close();
  });
}

test("without the host's SDK the guard is off, and the refused event fails the connection and its sessions", async (t) => {
  const host = await startHost(t, { generation: "0.9", bin: scripted, withSdk: false });
  const connection = await connect(host);
  // The refusal may fail the open before its acceptance arrives, as in the real runtime.
  const open = connection.send(openInput("s")).catch((error) => error);
  const failed = await waitEvent(connection, (e) => e.type === "session.runtime_failed", "session.runtime_failed");
  assert.equal(failed.sessionId, "s");
  assert.equal(connection.stats.refused.length, 1);
  assert.equal(connection.stats.refused[0].type, "session.config");
  assert.match(connection.stats.refused[0].problem, /^config\.settings: /);
  await assert.rejects(connection.send(prompt("s", "m1", "hi")), /closed/);
  await open;
});
