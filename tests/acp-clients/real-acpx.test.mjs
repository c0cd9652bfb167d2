// acpx (pinned in package.json) driving `agent-bridge acp` for the real providers of
// `acpxProviders` (one per family by default, ACP_CLIENTS_ACPX=all for every one; the pinned CLIs against the mock model, tests/acp-clients/real-rig.mjs, with the choices of
// real-providers.mjs) through `--agent`, with acpx's own persistent sessions: `sessions new`,
// `set-mode` (the mode that asks; no queue owner runs yet, so acpx starts an agent process for it
// alone), a turn (its `prompt` starts acpx's queue owner, whose new agent process resumes the
// session: in the mode set before), a prompt whose tool is approved (`--approve-all`: the mode
// asks) and one whose tool is denied (`--deny-all`) — for an agent that never asks, one prompt
// under `--deny-all` whose tool runs unasked, and both reported NOT OFFERED —, `set <option>`
// (session/set_config_option), `sessions list`, `sessions close`, and no agent process left after
// it. Providers run in a small pool. Cancel, images, kill -9 and load with replay are driven by the
// SDK client (real-sdk.test.mjs): acpx's commands cannot time a cancel or a kill mid-turn.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { agentCommand, realRig, reportOk, requireCli, startMock } from "./real-rig.mjs";
import { acpxProviders, escalation, pool } from "./real-providers.mjs";

const acpx = join(dirname(fileURLToPath(import.meta.url)), "node_modules/.bin/acpx");

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
    // "close", not "exit": the output may still be in the pipe when the process has exited (a
    // loaded machine lost a turn's answer or `sessions new`'s line that way).
    child.on("close", (status) => {
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

/** A scenario the agent does not offer, reported with the reason. */
function notOffered(t, name, why) {
  return t.test(name, (st) => {
    console.log(`NOT OFFERED: ${st.fullName}: ${why}`);
    st.skip(why);
  });
}

async function scenarios(t, p) {
  const { provider, cli } = p;
  const cliFile = requireCli(t, cli, "acpx");
  if (!cliFile) return;
  const rig = realRig(mock, provider, cli, cliFile);
  p.patch?.(rig);
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
  const asked = (ran) => ran.messages.some((m) => m.method === "session/request_permission");
  const ended = (ran, reason = "end_turn") => ran.messages.some((m) => m.result?.stopReason === reason);
  const fail = (ran) => `exit ${ran.status}\n${ran.out.slice(-2000)}\n${ran.err.slice(-2000)}`;
  /** A prompt running `command`; codex-acp's asking mode asks only for an escalated command. */
  const tool = async (flag, command) => {
    const text = `please run \`${command}\` (${provider}, acpx)`;
    if (p.escalate) await mock.script(escalation(text, command));
    return [flag, "prompt", text];
  };
  const mode = p.askMode ?? p.onlyMode;

  await step("sessions new", ["sessions", "new"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.action === "session_ensured" && m.created), ran.out);
  });
  await step("set-mode", ["set-mode", mode], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ran.messages.some((m) => m.action === "mode_set" && m.modeId === mode), ran.out);
  });
  await step("a turn", ["prompt", "say hello"], (ran) => {
    assert.equal(ran.status, 0, fail(ran));
    assert.ok(ended(ran), ran.out);
    assert.match(said(ran), /mock reply/);
  });
  if (p.neverAsks) {
    // Checked: the command runs and nothing is asked (with --deny-all, which would deny it).
    await step("a turn whose tool runs unasked", await tool("--deny-all", "touch acpx-unasked.txt"), (ran) => {
      assert.equal(ran.status, 0, fail(ran));
      assert.ok(!asked(ran), `an agent that never asks asked: ${ran.out}`);
      assert.ok(ended(ran), ran.out);
      assert.ok(existsSync(join(rig.cwd, "acpx-unasked.txt")), "the command ran unasked");
    });
    const why = `${p.neverAsks}; checked: the command ran unasked under --deny-all`;
    await notOffered(t, "a turn with its tool approved", why);
    await notOffered(t, "a turn with its tool denied", why);
  } else {
    await step("a turn with its tool approved", await tool("--approve-all", "touch acpx-allowed.txt"), (ran) => {
      assert.equal(ran.status, 0, fail(ran));
      assert.ok(asked(ran), ran.out);
      assert.ok(ended(ran), ran.out);
      assert.ok(existsSync(join(rig.cwd, "acpx-allowed.txt")), "the approved command ran");
      assert.notEqual(said(ran), "");
    });
    await step("a turn with its tool denied", await tool("--deny-all", "mkdir acpx-denied"), (ran) => {
      assert.ok(asked(ran), ran.out);
      // codex-acp's only reject option aborts the turn (real-providers.mjs).
      assert.ok(ended(ran, p.denyCancels ? "cancelled" : "end_turn"), ran.out);
      assert.ok(!existsSync(join(rig.cwd, "acpx-denied")), "the denied command did not run");
      // acpx 0.19.1 exits 5 after a denial in `exec` (acpx.test.mjs), 0 in a queued `prompt`.
      assert.equal(ran.status, 0, fail(ran));
    });
  }
  if (p.noConfigChange) {
    await notOffered(t, "set a config option", p.noConfigChange);
  } else {
    const { id, value } = p.config ?? { id: "model", value: p.acpxModel };
    await step(`set ${id} (a config option)`, ["set", id, value], (ran) => {
      assert.equal(ran.status, 0, fail(ran));
      const set =
        id === "model"
          ? ran.messages.some((m) => m.action === "model_set" && m.modelId === value)
          : ran.messages.some(
              (m) => m.action === "config_set" && m.configOptions.find((o) => o.id === id)?.currentValue === value,
            );
      assert.ok(set, ran.out);
    });
  }
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
  reportOk(cli, "acpx", rig.env);
}

test(`real providers through agent-bridge acp, driven by acpx (${pool} at once)`, { concurrency: pool }, async (t) => {
  await Promise.all(acpxProviders.map((p) => t.test(p.provider, (st) => scenarios(st, p))));
});
