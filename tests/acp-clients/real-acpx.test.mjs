// acpx (pinned in package.json) driving `agent-bridge acp` for real providers (the pinned CLIs
// against the mock model, tests/acp-clients/real-rig.mjs) through `--agent`, with acpx's own
// persistent sessions: `sessions new`, `set-mode` (the mode that asks; no queue owner runs yet, so
// acpx starts an agent process for it alone), a turn (its `prompt` starts acpx's queue owner, whose
// new agent process resumes the session: in the mode set before), a prompt whose tool is approved
// (`--approve-all`: the mode asks) and one whose tool is denied (`--deny-all`), `set model`
// (session/set_config_option), `sessions list`, `sessions close`, and no agent process left after
// it. Providers run in parallel. Cancel, images, kill -9 and load with replay are driven by the
// SDK client (real-sdk.test.mjs): acpx's commands cannot time a cancel or a kill mid-turn.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { agentCommand, realRig, reportOk, requireCli, startMock } from "./real-rig.mjs";

const acpx = join(dirname(fileURLToPath(import.meta.url)), "node_modules/.bin/acpx");

const providers = [
  { provider: "claude-bridge", cli: "claude", askMode: "default", model: "sonnet" },
  { provider: "codex-bridge", cli: "codex", askMode: "ask", model: "mock-model" },
  { provider: "gemini-bridge", cli: "gemini", askMode: "default", model: "gemini-2.5-pro" },
];

let mock;
before(async () => {
  mock = await startMock();
});
after(() => mock?.stop());

/** acpx `args` for the rig's agent: exit status and its JSON output lines. */
function run(rig, args) {
  const agent = agentCommand(rig).join(" ");
  return new Promise((ok) => {
    const child = spawn(acpx, ["--agent", agent, "--format", "json", "--ttl", "0", ...args], {
      cwd: rig.cwd,
      env: rig.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (status) => {
      const messages = out
        .split("\n")
        .filter((l) => l.trim().startsWith("{"))
        .map((l) => JSON.parse(l));
      ok({ status, messages, out, err });
    });
  });
}

/** The processes whose command line names `needle`. */
function running(needle) {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, "utf8").includes(needle);
      } catch {
        return false;
      }
    });
}

async function scenarios(t, { provider, cli, askMode, model }) {
  const cliFile = requireCli(t, cli, "acpx");
  if (!cliFile) return;
  const rig = realRig(mock, provider, cli, cliFile);
  const step = async (name, args, check) => {
    const ran = await run(rig, args);
    await t.test(name, () => check(ran));
    return ran;
  };
  const said = (ran) =>
    ran.messages
      .filter((m) => m.params?.update?.sessionUpdate === "agent_message_chunk")
      .map((m) => m.params.update.content.text)
      .join("");
  const fail = (ran) => `exit ${ran.status}\n${ran.err.slice(-2000)}`;

  await step("sessions new", ["sessions", "new"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.action === "session_ensured" && m.created), ran.out);
  });
  await step("set-mode", ["set-mode", askMode], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.action === "mode_set" && m.modeId === askMode), ran.out);
  });
  await step("a turn", ["prompt", "say hello"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.result?.stopReason === "end_turn"), ran.out);
    assert.match(said(ran), /mock reply/);
  });
  await step("a turn with its tool approved", ["--approve-all", "prompt", "please run `touch acpx-allowed.txt`"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.method === "session/request_permission"), ran.out);
    assert.ok(ran.messages.some((m) => m.result?.stopReason === "end_turn"), ran.out);
    assert.ok(existsSync(join(rig.cwd, "acpx-allowed.txt")), "the approved command ran");
    assert.notEqual(said(ran), "");
  });
  await step("a turn with its tool denied", ["--deny-all", "prompt", "please run `mkdir acpx-denied`"], (ran) => {
    assert.ok(ran.messages.some((m) => m.method === "session/request_permission"), ran.out);
    assert.ok(ran.messages.some((m) => m.result?.stopReason === "end_turn"), ran.out);
    assert.ok(!existsSync(join(rig.cwd, "acpx-denied")), "the denied command did not run");
    // acpx 0.19.1 exits 5 after a denial in `exec` (acpx.test.mjs), 0 in a queued `prompt`.
    assert.equal(ran.status, 0, fail(ran));
  });
  await step("set model (a config option)", ["set", "model", model], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.action === "model_set" && m.modelId === model), ran.out);
  });
  await step("sessions list", ["sessions", "list"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.notEqual(ran.out.trim(), "");
  });
  await step("sessions close", ["sessions", "close"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
  });
  await t.test("no agent process left", () => {
    assert.deepEqual(running(rig.dataDir), []);
  });
  reportOk(cli, "acpx");
}

test("real providers through agent-bridge acp, driven by acpx", { concurrency: true }, async (t) => {
  await Promise.all(providers.map((p) => t.test(p.provider, (st) => scenarios(st, p))));
});
