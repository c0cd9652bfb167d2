// acpx (pinned in package.json), a headless ACP client CLI, running `agent-bridge acp --provider
// demo` through `--agent`: a one-shot turn whose shell tool is approved, then one denied, each
// checked in acpx's JSON output (the wire as acpx saw it). Run by tests/acp-clients/run.sh.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const bin = process.env.AGENT_BRIDGE_BIN ?? join(repo, "target/debug/agent-bridge");
const acpx = join(here, "node_modules/.bin/acpx");

/** acpx's JSON output and exit status (acpx 0.19.1 exits 5 after it denied a permission). */
function run(policy, prompt) {
  const home = mkdtempSync(join(tmpdir(), "acpx-home-"));
  const cwd = join(home, "w");
  mkdirSync(cwd);
  const agent = `${bin} acp --provider demo --plugin-dir ${repo} --data-dir ${join(home, "data")}`;
  const ran = spawnSync(acpx, ["--agent", agent, policy, "--format", "json", "exec", prompt], {
    cwd,
    env: { ...process.env, HOME: home, AGENT_BRIDGE_DEMO: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  const messages = ran.stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => JSON.parse(l));
  return { status: ran.status, messages };
}

const said = (messages) =>
  messages
    .filter((m) => m.params?.update?.sessionUpdate === "agent_message_chunk")
    .map((m) => m.params.update.content.text)
    .join("");

test("acpx approves a tool and the turn ends", () => {
  const { status, messages } = run("--approve-all", "please run `echo acpx-approved`");
  assert.equal(status, 0);
  const asked = messages.filter((m) => m.method === "session/request_permission");
  assert.equal(asked.length, 1);
  assert.ok(messages.some((m) => m.result?.stopReason === "end_turn"));
  assert.match(said(messages), /exited with code 0: acpx-approved/);
});

test("acpx denies a tool and it does not run", () => {
  const { status, messages } = run("--deny-all", "please run `echo acpx-denied`");
  assert.equal(status, 5, "acpx reports the denied permission");
  assert.equal(messages.filter((m) => m.method === "session/request_permission").length, 1);
  assert.ok(messages.some((m) => m.result?.stopReason === "end_turn"));
  assert.doesNotMatch(said(messages), /exited with code 0/);
});
