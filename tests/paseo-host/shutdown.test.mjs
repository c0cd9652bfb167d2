// The plugin inside the host's shutdown grace, with work in flight: a demo session running a
// shell tool (`sleep 30`) and a claude-bridge session (the pinned Claude Code against the mock)
// streaming a slow reply, on one bridge.
// - `shutdown`: the plugin process, the bridge, its guards and every CLI are gone before the
//   host's SIGTERM (2 s), with no escalation;
// - SIGKILL of the plugin process: no bridge, guard or CLI is left 3 s later.
// The measured times go to target/paseo-host-shutdown.txt (and test diagnostics).

import assert from "node:assert/strict";
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { alive, descendants, repoRoot, requireBinary, sleep, startHost, tempDir, waitEvent } from "./harness.mjs";
import { cliPath, cliRequired, hermeticEnv, reportOk, reportSkipped, startMock } from "./providers.mjs";

const GRACE_MS = 2_000;
const KILL_LIMIT_MS = 3_000;

function record(t, line) {
  mkdirSync(path.join(repoRoot, "target"), { recursive: true });
  appendFileSync(path.join(repoRoot, "target", "paseo-host-shutdown.txt"), `${line}\n`);
  t.diagnostic(line);
}

function prompt(sessionId, clientMessageId, text) {
  return {
    type: "session.prompt",
    sessionId,
    prompt: { clientMessageId, delivery: "auto", input: { type: "message", content: [{ type: "text", text }] } },
  };
}

/** A host with a demo tool and (when Claude Code is installed) a Claude turn running. */
async function busyHost(t, generation) {
  requireBinary();
  const claude = cliPath("claude");
  if (!claude && cliRequired()) assert.fail("claude is not installed (tests/clis/install.sh)");
  if (!claude) {
    console.error("SKIPPED: claude not installed; the shutdown tests run the demo alone");
    reportSkipped("claude", `paseo-host-shutdown-${generation}`, "not installed");
  }
  let env = process.env;
  let workdir = tempDir("paseo-shutdown-work-");
  if (claude) {
    const mock = await startMock();
    t.after(() => mock.stop());
    const root = tempDir("paseo-shutdown-");
    env = hermeticEnv("claude", root, mock.port);
    workdir = path.join(root, "work");
  }
  const host = await startHost(t, { generation, env, extra: { AGENT_BRIDGE_CLAUDE_SPARE: "0" } });
  const config = { cwd: workdir, env: {}, mcpServers: {}, settings: {}, persist: false };
  const capabilities = ["prompt.message", "permission", "session.configure"];

  const demo = await host.connect("demo", { versions: [1], capabilities });
  await demo.send({ type: "session.open", requestId: "o1", sessionId: "d", config: { ...config, mode: "auto" }, history: "skip" });
  await waitEvent(demo, (e) => e.type === "session.ready", "the demo session");
  await demo.send(prompt("d", "m1", "run `sleep 30`"));
  await waitEvent(demo, (e) => e.type === "timeline.item" && e.item.type === "tool_call", "the running tool");

  let connections = [demo];
  if (claude) {
    const cc = await host.connect("claude-bridge", { versions: [1], capabilities });
    await cc.send({ type: "session.open", requestId: "o2", sessionId: "c", config, history: "skip" });
    await waitEvent(cc, (e) => e.type === "session.ready", "the Claude session", 90_000);
    await cc.send(prompt("c", "m2", "SLOW please tell a long story"));
    await waitEvent(cc, (e) => e.type === "timeline.item" && e.item.type === "assistant_message", "Claude streaming", 90_000);
    connections = [demo, cc];
  }
  // Everything under the plugin process: the bridge, its guards, the tool, the CLI.
  let processes = [];
  for (let i = 0; i < 50 && !processes.some((p) => p.cmdline.includes("sleep 30")); i += 1) {
    processes = descendants(host.child.pid);
    await sleep(50);
  }
  assert.ok(processes.some((p) => p.cmdline.includes("agent-bridge") && p.cmdline.includes("serve")), JSON.stringify(processes));
  assert.ok(processes.some((p) => p.cmdline.includes("sleep 30")), JSON.stringify(processes));
  if (claude) assert.ok(processes.some((p) => /claude/.test(p.cmdline) && !p.cmdline.includes("agent-bridge")), JSON.stringify(processes));
  return { host, processes, connections, claude };
}

for (const generation of ["0.9", "newest"]) {
  test(`${generation}: on shutdown everything is gone within the host's 2 s`, { timeout: 240_000 }, async (t) => {
    const { host, processes, claude } = await busyHost(t, generation);
    const stopped = await host.stop();
    const left = processes.filter((p) => alive(p.pid));
    record(
      t,
      `${generation} shutdown with a tool${claude ? " and a Claude turn" : ""} running: plugin process exited ` +
        `${stopped.exitedAfterMs} ms after \`shutdown\` (escalation: ${stopped.escalated ?? "none"}), ` +
        `${processes.length} processes under it, ${left.length} left`,
    );
    assert.equal(stopped.escalated, null, `no SIGTERM / SIGKILL was needed: ${JSON.stringify(stopped)}`);
    assert.ok(stopped.exitedAfterMs < GRACE_MS, `exited after ${stopped.exitedAfterMs} ms`);
    assert.deepEqual(left, [], "nothing outlives the plugin process");
    if (claude) reportOk("claude", claude, `paseo-host-shutdown-${generation}`);
  });
}

test("SIGKILL of the plugin process: no bridge, guard or CLI survives 3 s later", { timeout: 240_000 }, async (t) => {
  const { host, processes, claude } = await busyHost(t, "newest");
  const since = Date.now();
  await host.kill();
  let left = processes.filter((p) => alive(p.pid));
  while (left.length > 0 && Date.now() - since < KILL_LIMIT_MS) {
    await sleep(25);
    left = processes.filter((p) => alive(p.pid));
  }
  const gone = Date.now() - since;
  record(
    t,
    `SIGKILL of the plugin process with a tool${claude ? " and a Claude turn" : ""} running: ` +
      `${processes.length} processes under it, ${left.length} left after ${gone} ms`,
  );
  assert.deepEqual(left, [], `processes survived ${KILL_LIMIT_MS} ms after the SIGKILL`);
});
