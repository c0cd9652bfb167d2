// The official ACP TypeScript SDK's client (@agentclientprotocol/sdk, pinned in package.json)
// driving `agent-bridge acp --provider demo`: a turn, permission allowed and rejected, cancel,
// set mode, set config option, list, close, and load with replay in a second agent process.
// Run by tests/acp-clients/run.sh (AGENT_BRIDGE_BIN names the binary).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const bin = process.env.AGENT_BRIDGE_BIN ?? join(repo, "target/debug/agent-bridge");

/** Starts the agent and runs `op(ctx, state)` with the SDK's client connected to it. */
async function withAgent(dataDir, answer, op) {
  const child = spawn(bin, ["acp", "--provider", "demo", "--plugin-dir", repo, "--data-dir", dataDir], {
    env: { ...process.env, AGENT_BRIDGE_DEMO: "1" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const state = { updates: [], asked: [] };
  const app = client({ name: "agent-bridge-sdk-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      state.updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      state.asked.push(params);
      if (answer.kind === "cancelled") return { outcome: { outcome: "cancelled" } };
      const option = params.options.find((o) => o.kind === answer.kind);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  try {
    return await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: "sdk-test", version: "0" },
      });
      assert.equal(init.protocolVersion, 1);
      return await op(ctx, state, init);
    });
  } finally {
    child.stdin.end();
    assert.equal(await exited, 0, "the agent exits cleanly when stdin closes");
  }
}

const text = (updates, kind) =>
  updates
    .filter((u) => u.update.sessionUpdate === kind)
    .map((u) => u.update.content?.text ?? "")
    .join("");

test("a turn, permissions both ways, cancel, mode, config, list, close", async () => {
  const data = mkdtempSync(join(tmpdir(), "acp-sdk-"));
  const cwd = mkdtempSync(join(tmpdir(), "acp-sdk-cwd-"));
  await withAgent(data, { kind: "allow_once" }, async (ctx, state, init) => {
    assert.equal(init.agentCapabilities.loadSession, true);
    const { sessionId, modes, configOptions } = await ctx.request(methods.agent.session.new, {
      cwd,
      mcpServers: [],
    });
    assert.equal(modes.currentModeId, "ask");
    assert.ok(configOptions.some((o) => o.id === "model"));

    const turn = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "hello from the sdk" }],
    });
    assert.equal(turn.stopReason, "end_turn");
    assert.match(text(state.updates, "agent_message_chunk"), /hello from the sdk/);

    const ran = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "please run `echo sdk-allowed`" }],
    });
    assert.equal(ran.stopReason, "end_turn");
    assert.equal(state.asked.length, 1);
    const done = state.updates.find(
      (u) => u.update.status === "completed" && JSON.stringify(u.update.content ?? "").includes("sdk-allowed"),
    );
    assert.ok(done, "the shell call completed with its output");

    const slow = ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "SLOW please" }],
    });
    while (!state.updates.some((u) => JSON.stringify(u).includes("SLOW"))) {
      await new Promise((r) => setImmediate(r));
    }
    await ctx.notify(methods.agent.session.cancel, { sessionId });
    assert.equal((await slow).stopReason, "cancelled");

    assert.deepEqual(
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: "auto" }),
      {},
    );
    const set = await ctx.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "demo-smart",
    });
    assert.equal(set.configOptions.find((o) => o.id === "model").currentValue, "demo-smart");

    const list = await ctx.request(methods.agent.session.list, { cwd });
    assert.equal(list.sessions.length, 1);

    assert.deepEqual(await ctx.request(methods.agent.session.close, { sessionId }), {});
  });
});

test("a rejected permission does not run the tool; load replays in a new agent process", async () => {
  const data = mkdtempSync(join(tmpdir(), "acp-sdk-"));
  const cwd = mkdtempSync(join(tmpdir(), "acp-sdk-cwd-"));
  const sessionId = await withAgent(data, { kind: "reject_once" }, async (ctx, state) => {
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    const end = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "please run `echo sdk-rejected`" }],
    });
    assert.equal(end.stopReason, "end_turn");
    assert.equal(state.asked.length, 1);
    assert.ok(
      !state.updates.some((u) => u.update.status === "completed" && JSON.stringify(u.update.content ?? "").includes("sdk-rejected\\n")),
    );
    return sessionId;
  });
  await withAgent(data, { kind: "cancelled" }, async (ctx, state) => {
    const loaded = await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    assert.equal(loaded.modes.currentModeId, "ask");
    assert.match(text(state.updates, "user_message_chunk"), /sdk-rejected/);
    // A cancelled permission denies too.
    const end = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "please run `echo sdk-cancelled`" }],
    });
    assert.equal(end.stopReason, "end_turn");
    assert.equal(state.asked.length, 1);
  });
});
