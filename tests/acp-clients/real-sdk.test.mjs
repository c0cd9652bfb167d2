// The official ACP TypeScript SDK's client (@agentclientprotocol/sdk) driving `agent-bridge acp`
// for every real provider of plugin.json (the pinned CLIs against the mock model,
// tests/acp-clients/real-rig.mjs), each with its own choices (real-providers.mjs: the mode that
// asks, another mode, a config option that keeps the session on the mock). Providers run in a
// small pool (real-providers.mjs `pool`); a provider's scenarios run in order on one agent
// process: a turn, a tool allowed then denied, cancel, set mode, set config option, an image,
// kill -9 of the CLI mid-turn then the next prompt, list, stdin closed leaving no process behind,
// and load with replay in a new agent process. A scenario the agent cannot do is checked (refused
// with a JSON-RPC error where the facade refuses it; for an agent that never asks, the tool runs
// unasked) and reported as a skipped test with the reason (`NOT OFFERED: …`), never passed
// silently.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { agentCommand, alive, descendants, gone, realRig, reportOk, requireCli, startMock } from "./real-rig.mjs";
import { escalation, pool, providers, slowReply } from "./real-providers.mjs";

// A 1x1 PNG.
const png =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let mock;
before(async () => {
  mock = await startMock();
});
after(() => mock?.stop());

/** Starts the agent for `rig` and runs `op(ctx, state, init, child)` with the SDK client on it. */
async function withAgent(t, rig, op) {
  const [cmd, ...args] = agentCommand(rig);
  const child = spawn(cmd, args, { env: rig.env, stdio: ["pipe", "pipe", "inherit"] });
  const state = { updates: [], asked: [], answer: "allow_once", waiters: [] };
  const app = client({ name: "agent-bridge-sdk-real-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      state.updates.push(params);
      state.waiters = state.waiters.filter((w) => !w(params));
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      state.asked.push(params);
      const option = params.options.find((o) => o.kind === state.answer);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  try {
    return await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: "sdk-real-test", version: "0" },
      });
      assert.equal(init.protocolVersion, 1);
      assert.deepEqual(init.authMethods, []);
      return await op(ctx, state, init, child);
    });
  } finally {
    // stdin closed: the agent exits cleanly and leaves no process behind.
    const under = child.exitCode === null ? descendants(child.pid) : [];
    child.stdin.end();
    assert.equal(await exited, 0, "the agent exits cleanly when stdin closes");
    await gone(under);
    t.diagnostic(`stdin closed: the agent exited with 0 and the ${under.length} processes under it are gone`);
  }
}

/** Resolves with the first update (from now on) that `pred` accepts. */
const nextUpdate = (state, pred) =>
  new Promise((ok) => {
    state.waiters.push((u) => {
      if (!pred(u)) return false;
      ok(u);
      return true;
    });
  });

const textOf = (updates, kind) =>
  updates
    .filter((u) => u.update.sessionUpdate === kind)
    .map((u) => u.update.content?.text ?? "")
    .join("");

const prompt = (ctx, sessionId, text) =>
  ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

/** A scenario the agent does not offer: `refused` must fail with a JSON-RPC error, then skip. */
async function notOffered(t, why, refused) {
  if (refused) await assert.rejects(refused, (e) => typeof e.code === "number" && typeof e.message === "string");
  console.log(`NOT OFFERED: ${t.fullName}: ${why}`);
  t.skip(why);
}

/** Resolves once the turn of `prompt` runs: text streams, or (`streams: false`) the model has it. */
function midTurn(p, state, text) {
  if (p.streams === false) return mock.saw(text);
  return nextUpdate(state, (u) => u.update.sessionUpdate === "agent_message_chunk");
}

async function scenarios(t, p) {
  const { provider, cli, otherMode, noConfigChange } = p;
  const cliFile = requireCli(t, cli, "sdk");
  if (!cliFile) return;
  const rig = realRig(mock, provider, cli, cliFile);
  p.patch?.(rig);
  let sessionId;
  let offersLoad = false;
  let offersList = false;
  await withAgent(t, rig, async (ctx, state, init, child) => {
    offersLoad = init.agentCapabilities.loadSession === true;
    offersList = init.agentCapabilities.sessionCapabilities?.list !== undefined;
    const opened = await ctx.request(methods.agent.session.new, { cwd: rig.cwd, mcpServers: [] });
    sessionId = opened.sessionId;
    const askMode = p.askMode ?? opened.modes.currentModeId;

    await t.test("a turn", async () => {
      const from = state.updates.length;
      assert.equal((await prompt(ctx, sessionId, "say hello")).stopReason, "end_turn");
      assert.match(textOf(state.updates.slice(from), "agent_message_chunk"), /mock reply/);
    });

    await t.test("a tool with permission allowed, then denied", async (st) => {
      if (p.neverAsks) {
        // Checked: the command runs and nothing is asked, in the mode the session is in.
        state.asked.length = 0;
        const end = await prompt(ctx, sessionId, "please run `touch unasked.txt`");
        assert.equal(end.stopReason, "end_turn");
        assert.deepEqual(state.asked, [], "an agent that never asks asked");
        assert.ok(existsSync(join(rig.cwd, "unasked.txt")), "the command ran unasked");
        return notOffered(st, `${p.neverAsks}; checked: the command ran unasked`);
      }
      assert.deepEqual(await ctx.request(methods.agent.session.setMode, { sessionId, modeId: askMode }), {});
      for (const [answer, file, runs] of [
        ["allow_once", "allowed.txt", true],
        ["reject_once", "denied.txt", false],
      ]) {
        state.asked.length = 0;
        state.answer = answer;
        const text = `please run \`touch ${file}\` (${provider}, sdk)`;
        if (p.escalate) await mock.script(escalation(text, `touch ${file}`));
        const end = await prompt(ctx, sessionId, text);
        if (answer === "reject_once" && p.denyCancels) {
          assert.equal(end.stopReason, "cancelled", answer);
          st.diagnostic(`denied: the turn ends cancelled (${p.denyCancels})`);
        } else {
          assert.equal(end.stopReason, "end_turn", answer);
        }
                assert.ok(state.asked.length > 0, `${answer}: the CLI asked`);
        assert.equal(state.asked[0].toolCall.kind, "execute");
        assert.equal(existsSync(join(rig.cwd, file)), runs, `${answer}: ${file}`);
      }
      state.answer = "allow_once";
    });

    await t.test("cancel", async () => {
      const text = `SLOW please (${provider}, sdk cancel)`;
      await mock.script(slowReply(text));
      const running = midTurn(p, state, text);
      const slow = prompt(ctx, sessionId, text);
      await running;
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      assert.equal((await slow).stopReason, "cancelled");
      if (p.busyAfterCancel) {
        // The agent answers nothing else until the model request in flight is done.
        await mock.answered(text);
        console.log(`after the cancel: ${p.busyAfterCancel}`);
      }
    });

    await t.test("set mode", async (st) => {
      if (!otherMode) {
        assert.equal(opened.modes.availableModes.length, 1, "one mode");
        const refused = ctx.request(methods.agent.session.setMode, { sessionId, modeId: "no-such-mode" });
        return notOffered(st, p.oneMode, refused);
      }
      const other = opened.modes.availableModes.find((m) => m.id === otherMode);
      assert.ok(other, `${otherMode} among ${JSON.stringify(opened.modes.availableModes.map((m) => m.id))}`);
      const changed = nextUpdate(state, (u) => u.update.sessionUpdate === "current_mode_update");
      assert.deepEqual(await ctx.request(methods.agent.session.setMode, { sessionId, modeId: other.id }), {});
      assert.equal((await changed).update.currentModeId, other.id);
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: askMode });
    });

    await t.test("set config option", async (st) => {
      if (noConfigChange) return notOffered(st, noConfigChange);
      const selects = opened.configOptions.filter((o) => o.type === "select" && o.options.length > 1);
      const option = p.config
        ? selects.find((o) => o.id === p.config.id)
        : (selects.find((o) => o.id === "model") ?? selects.find((o) => o.id !== "mode"));
      if (!option) {
        return notOffered(st, `${provider} offers no config option but mode with more than one value`);
      }
      const value = p.config?.value ?? option.options.find((v) => v.value !== option.currentValue).value;
      assert.ok(option.options.some((v) => v.value === value), `${value} among ${option.id}'s values`);
      assert.notEqual(option.currentValue, value);
      if (p.config?.why) st.diagnostic(`the mode's option (${p.config.why})`);
      const set = await ctx.request(methods.agent.session.setConfigOption, { sessionId, configId: option.id, value });
      assert.equal(set.configOptions.find((o) => o.id === option.id).currentValue, value);
      assert.equal((await prompt(ctx, sessionId, "still there")).stopReason, "end_turn");
    });

    await t.test("an image", async (st) => {
      const image = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "what is in this picture" },
          { type: "image", mimeType: "image/png", data: png },
        ],
      });
      if (!init.agentCapabilities.promptCapabilities?.image) {
        return notOffered(st, `${provider} declares no image prompts`, image);
      }
      assert.equal((await image).stopReason, "end_turn");
    });

    await t.test("kill -9 of the CLI mid-turn, then the next prompt resumes", async () => {
      const text = `SLOW again (${provider}, sdk kill)`;
      await mock.script(slowReply(text));
      const running = midTurn(p, state, text);
      const slow = prompt(ctx, sessionId, text);
      await running;
      const cli = descendants(child.pid).filter((d) => !d.cmdline.includes("agent-bridge"));
      assert.ok(cli.length > 0, "the CLI runs under the agent");
      for (const d of cli) if (alive(d.pid)) process.kill(d.pid, "SIGKILL");
      await assert.rejects(slow, (e) => typeof e.message === "string" && e.message.length > 0);
      const from = state.updates.length;
      assert.equal((await prompt(ctx, sessionId, "are you back")).stopReason, "end_turn");
      assert.notEqual(textOf(state.updates.slice(from), "agent_message_chunk"), "");
    });

    await t.test("list", async (st) => {
      const list = ctx.request(methods.agent.session.list, { cwd: rig.cwd });
      if (!offersList) return notOffered(st, `${provider} declares no session/list`, list);
      assert.ok((await list).sessions.some((s) => s.cwd === rig.cwd));
    });
  });

  await t.test("load with replay in a new agent process", async (st) => {
    await withAgent(st, rig, async (ctx, state) => {
      const loading = ctx.request(methods.agent.session.load, { sessionId, cwd: rig.cwd, mcpServers: [] });
      if (!offersLoad) return notOffered(st, `${provider} declares loadSession: false`, loading);
      await loading;
      if (p.replayWithoutPrompts) {
        assert.equal(textOf(state.updates, "user_message_chunk"), "", "no user message replayed");
        console.log(`NOT OFFERED: ${st.fullName} (the user's messages in the replay): ${p.replayWithoutPrompts}`);
      } else {
        assert.match(textOf(state.updates, "user_message_chunk"), /say hello/);
      }
      assert.match(textOf(state.updates, "agent_message_chunk"), /mock reply/);
      assert.equal((await prompt(ctx, sessionId, "one more")).stopReason, "end_turn");
    });
  });
  reportOk(cli, "acp-sdk-client", rig.env);
}

test(
  `real providers through agent-bridge acp, driven by the official SDK client (${pool} at once)`,
  { concurrency: pool },
  async (t) => {
    await Promise.all(providers.map((p) => t.test(p.provider, (st) => scenarios(st, p))));
  },
);
