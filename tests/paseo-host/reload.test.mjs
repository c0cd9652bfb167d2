// A plugin reload with sessions open, as Paseo does it: `reloadPlugin` stops the plugin
// (`stopPlugin`: `shutdown`, SIGTERM 2 s later, SIGKILL 2 s after that) and starts a new plugin
// process (`packages/server/src/server/plugins/index.ts@743b27cd`); the provider guide asks to
// "reload and remove the plugin while a session is active and confirm the session terminates"
// (`public-docs/plugins/providers.md@743b27cd`). Paseo's own issues #4626 and #5132 are about
// this. Checked per provider (the demo always; Claude Code, Codex and OpenCode against the mock
// when their pinned CLIs are installed): no process of the first plugin process outlives it, and
// the new plugin process's connection reopens each session by its persistence handle, with its
// history replayed, and runs a turn in it.

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { alive, descendants, requireBinary, sleep, startHost, tempDir, waitEvent } from "./harness.mjs";
import { CASES, cliPath, cliRequired, hermeticEnv, reportOk, reportSkipped, startMock } from "./providers.mjs";
import { STEP_MS, ask, open, rid, startTurn, turnEnd } from "./steps.mjs";

const PROVIDERS = {
  demo: null,
  "claude-bridge": ["claude"],
  "codex-bridge": ["codex"],
  "opencode-bridge": ["opencode"],
};

/** The newest persistence handle of a session (Claude Code publishes it once a turn is saved). */
function handleOf(connection, sessionId) {
  return [...connection.events]
    .reverse()
    .find((e) => e.sessionId === sessionId && (e.type === "session.persistence" || e.type === "session.opened") && e.persistence)
    ?.persistence;
}

/** Waits (bounded) until none of `processes` lives; returns those still alive. */
async function gone(processes, limitMs) {
  const deadline = Date.now() + limitMs;
  let left = processes.filter((p) => alive(p.pid));
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(50);
    left = left.filter((p) => alive(p.pid));
  }
  return left;
}

async function reload(t, id, command) {
  requireBinary();
  const info = CASES[id];
  let env = { ...process.env };
  let workdir = tempDir("paseo-reload-work-");
  let cli = null;
  if (command) {
    cli = cliPath(info.cli);
    if (!cli) {
      if (cliRequired()) assert.fail(`the pinned ${info.cli} CLI is not installed (tests/clis/install.sh)`);
      reportSkipped(info.cli, `paseo-host-reload-${id}`, "CLI not installed");
      t.skip(`SKIPPED: ${info.cli} is not installed`);
      return;
    }
    const mock = await startMock();
    t.after(() => mock.stop());
    const root = tempDir(`paseo-reload-${id}-`);
    env = { ...hermeticEnv(info.cli, root, mock.port), ...(info.env ?? {}) };
    workdir = path.join(root, "work");
    info.prepare?.(root);
  }
  // Both plugin processes share the plugin's data folder and the daemon's environment.
  const extra = { AGENT_BRIDGE_DATA_DIR: tempDir("paseo-reload-data-"), AGENT_BRIDGE_CLAUDE_SPARE: "0", AGENT_BRIDGE_REQUEST_TIMEOUT_MS: "90000" };
  const sdkRequest = (sdk) => {
    const request = { versions: [1], capabilities: [...sdk.PROVIDER_CAPABILITIES] };
    if (command) request.launch = { command: command[0], args: command.slice(1), env };
    return request;
  };
  const config = { cwd: workdir, env: {}, mcpServers: {}, settings: {}, persist: true };

  // The first plugin process: two sessions, one turn each, both left open.
  const first = await startHost(t, { generation: "newest", env, extra });
  const before = await first.connect(id, sdkRequest(await first.schemas()));
  const handles = {};
  for (const sessionId of ["one", "two"]) {
    await open(before, sessionId, config);
    const turn = await startTurn(before, sessionId, `remember ${sessionId}`);
    const end = await turnEnd(before, sessionId, turn);
    assert.equal(end.state, "completed", JSON.stringify(end));
    handles[sessionId] = handleOf(before, sessionId) ?? (await waitEvent(before, (e) => e.type === "session.persistence" && e.sessionId === sessionId, `the handle of ${sessionId}`, STEP_MS)).persistence;
  }
  const processes = descendants(first.child.pid);
  assert.ok(processes.length > 0, "the bridge runs under the plugin process");
  const stopped = await first.stop();
  assert.equal(stopped.escalated, null, `the plugin process exited on shutdown within 2 s (${JSON.stringify(stopped)})`);
  // The runtime waits for nothing more: what still lives once a SIGKILLed process could be
  // reaped (500 ms) outlived the plugin.
  const left = await gone(processes, 500);
  assert.deepEqual(left, [], "no bridge or CLI outlives the plugin process");

  // The new plugin process reopens each session by its handle, with its history.
  const second = await startHost(t, { generation: "newest", env, extra });
  const after = await second.connect(id, sdkRequest(await second.schemas()));
  for (const sessionId of ["one", "two"]) {
    const since = after.events.length;
    const reopened = `${sessionId}-again`;
    await open(after, reopened, config, { persistence: handles[sessionId], history: "replay" });
    const replayed = after.events.slice(since).filter((e) => e.type === "timeline.item" && e.sessionId === reopened);
    assert.ok(
      replayed.some((e) => e.item.type === "user_message" && e.item.text === `remember ${sessionId}`),
      `the replay of ${sessionId} holds its prompt: ${JSON.stringify(replayed.map((e) => e.item))}`,
    );
    const turn = await startTurn(after, reopened, "and now?");
    const end = await turnEnd(after, reopened, turn);
    assert.equal(end.state, "completed", JSON.stringify(end));
  }
  const running = descendants(second.child.pid);
  await ask(after, { type: "session.close", requestId: rid("close"), sessionId: "one-again" });
  const stoppedAgain = await second.stop();
  assert.equal(stoppedAgain.escalated, null, JSON.stringify(stoppedAgain));
  assert.deepEqual(await gone(running, 500), [], "nothing outlives the second plugin process");
  assert.deepEqual(after.stats.refused, [], "the host refused no event");
  assert.ok(!after.events.some((e) => e.type === "session.runtime_failed"), "no session failed");
  if (cli) reportOk(info.cli, cli, "paseo-host-reload");
}

for (const [id, command] of Object.entries(PROVIDERS)) {
  test(`a plugin reload with ${id} sessions open: nothing left, sessions reopened by handle`, { timeout: 600_000 }, (t) => reload(t, id, command));
}
