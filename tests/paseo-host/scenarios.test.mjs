// Every provider through the emulated Paseo host: the demo and the pinned real CLIs against the
// mock model server. Per provider: (newest: status() and the
// launch built from the registration's command), catalog, open, a tool turn answered through a
// permission, configure, the session list, reopen with replay (where the provider declares
// persistence), an interrupt, close, and the plugin's shutdown inside the host's 2 s. Every
// input goes through the host's input schema and every event through its event schema: zero
// refused, for every provider on every generation it runs on. A table provider x generation -> events
// delivered / refused is written to target/paseo-host-report.txt (and as test diagnostics).
//
// Every provider runs on the newest generation. The 0.9 generation runs the providers of
// PASEO_HOST_OLD (comma-separated ids, or `all`; default: demo and one provider of each family,
// claude-bridge, codex-bridge and opencode-bridge). The 0.9 host differs from the newest in how
// it launches (no `command`, no status(), no history reader) and in the capabilities it
// negotiates, which shape the events the same way for every provider of a family, while each
// further run costs an agent's starts. (Checking the newest run's events against the 0.9 schema
// instead does not work: the events follow the negotiated capabilities, e.g. `config.settings`.)
//
// PASEO_HOST_JOBS (default 2) runs that many provider/generation pairs at once;
// PASEO_HOST_PROVIDERS (comma-separated ids) limits the providers.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { GENERATIONS, alive, descendants, repoRoot, requireBinary, sleep, startHost, tempDir, waitEvent } from "./harness.mjs";
import { STEP_MS, ask, open, rid, startTurn, turnEnd } from "./steps.mjs";
import { CASES, cliPath, cliRequired, hermeticEnv, mockBinary, reportOk, reportSkipped, startMock } from "./providers.mjs";

const JOBS = Math.max(1, Number(process.env.PASEO_HOST_JOBS ?? 2));
const ONLY = process.env.PASEO_HOST_PROVIDERS?.split(",").filter(Boolean);
const OLD = (process.env.PASEO_HOST_OLD ?? "demo,claude-bridge,codex-bridge,opencode-bridge").split(",").filter(Boolean);
/** Whether provider `id` runs on host generation `generation` (see above). */
const runsOn = (id, generation) => generation === "newest" || OLD.includes("all") || OLD.includes(id);
const PLUGIN = JSON.parse(readFileSync(path.join(repoRoot, "plugin.json"), "utf8"));

const results = [];

function providerIds() {
  const ids = PLUGIN.providers.map((p) => p.id).filter((id) => CASES[id]);
  return ONLY ? ids.filter((id) => ONLY.includes(id)) : ids;
}

/** The scenario; a failure carries the tail of the plugin process's output (bridge logs). */
/** The launch a newer daemon builds from a provider's `command` and its own environment. */
function launchOf(declared, env) {
  return { command: declared[0], args: declared.slice(1), env };
}

async function scenario(t, id, generation) {
  const ctx = {};
  try {
    await steps(t, id, generation, ctx);
  } catch (error) {
    const tail = ctx.host ? ctx.host.log().split("\n").slice(-40).join("\n") : "";
    error.message += `\n--- plugin process output (tail) ---\n${tail}`;
    throw error;
  }
}

async function steps(t, id, generation, ctx) {
  const info = CASES[id];
  const row = { provider: id, generation, delivered: 0, refused: "-", note: "" };
  results.push(row);
  let cli = null;
  if (info.cli) {
    cli = cliPath(info.cli);
    if (!cli) {
      if (cliRequired()) assert.fail(`${info.cli} is not installed (tests/clis/install.sh)`);
      row.note = `SKIPPED: ${info.cli} not installed`;
      console.error(`SKIPPED: ${info.cli} not installed (run tests/clis/install.sh); ${id} not exercised`);
      reportSkipped(info.cli, `paseo-host-${id}-${generation}`, "not installed");
      t.skip(row.note);
      return;
    }
  }
  const mock = await startMock();
  t.after(() => mock.stop());
  const root = tempDir(`paseo-host-${id}-`);
  let env = { ...process.env };
  let workdir = tempDir("paseo-host-work-");
  if (info.cli) {
    env = { ...hermeticEnv(info.cli, root, mock.port), ...(info.env ?? {}) };
    workdir = path.join(root, "work");
    info.prepare?.(root);
  }
  const host = await startHost(t, { generation, env, extra: { AGENT_BRIDGE_CLAUDE_SPARE: "0", AGENT_BRIDGE_REQUEST_TIMEOUT_MS: "90000" } });
  ctx.host = host;
  const sdk = await host.schemas();
  const registered = host.provider(id);
  assert.ok(registered, `${id} is registered`);

  const request = { versions: [1], capabilities: [...sdk.PROVIDER_CAPABILITIES] };
  const declared = PLUGIN.providers.find((p) => p.id === id).command;
  if (generation === "newest") {
    // The newer plugin process reads `command` and `status`; the daemon builds `launch` from
    // the command and its own environment.
    assert.equal(registered.hasStatus, true, "status() is registered");
    if (declared.length > 0) {
      assert.deepEqual(registered.command, declared);
      request.launch = launchOf(declared, env);
    } else {
      assert.equal(registered.command, undefined);
    }
    // `{ launch? }` and nothing else: the real plugin process refuses any other field.
    const status = await host.status(id, request.launch ? { launch: request.launch } : {});
    assert.deepEqual(status, { status: "available" }, `status() of ${id}`);
  } else {
    assert.equal("command" in registered, false, "0.9 does not read command");
  }

  const connection = await host.connect(id, request);
  // Whatever happens next, the table shows what the host saw.
  t.after(() => {
    row.delivered = connection.stats.delivered;
    row.refused = connection.stats.refused.length;
    if (connection.stats.refused.length > 0) row.note = `refused: ${connection.stats.refused[0].problem}`;
  });
  const catalog = await ask(connection, { type: "catalog", requestId: rid("catalog"), cwd: workdir });
  assert.equal(catalog.type, "catalog", JSON.stringify(catalog));

  const config = { cwd: workdir, env: {}, mcpServers: {}, settings: {}, persist: true };
  const a = `a-${generation}`;
  const opened = await open(connection, a, info.askMode ? { ...config, mode: info.askMode } : config);
  const caps = opened.capabilities;
  // The committed config as each host sees it: 0.9 gets the legacy settings (controls dropped
  // by its schema), the newest controls + providerOptions without an empty settings.
  const committed = connection.events.find((e) => e.type === "session.config" && e.sessionId === a).config;
  if (generation === "0.9") {
    assert.ok(Array.isArray(committed.settings), JSON.stringify(committed));
    assert.equal(committed.controls, undefined);
  } else {
    assert.ok(Array.isArray(committed.controls) && typeof committed.providerOptions === "object", JSON.stringify(committed));
    assert.ok(committed.settings === undefined || committed.settings.length > 0, "no empty legacy settings");
  }

  // A tool turn answered through a permission (an agent that never asks runs it unasked).
  await info.beforeToolTurn?.(mock);
  const turn = await startTurn(connection, a, "please run `touch allowed.txt`");
  if (info.neverAsks) {
    const end = await turnEnd(connection, a, turn);
    assert.equal(end.state, "completed", JSON.stringify(end));
    assert.ok(!connection.events.some((e) => e.type === "session.permission" && e.sessionId === a), "it never asks");
  } else {
    const asked = await waitEvent(connection, (e) => e.type === "session.permission" && e.sessionId === a, "a permission", STEP_MS);
    await connection.send({ type: "session.permission", sessionId: a, permissionId: asked.request.id, response: { behavior: "allow" } });
    const end = await turnEnd(connection, a, turn);
    assert.equal(end.state, "completed", JSON.stringify(end));
  }
  assert.ok(existsSync(path.join(workdir, "allowed.txt")), "the allowed command ran");

  // Configure: the unattended mode.
  const configured = await ask(connection, { type: "session.configure", requestId: rid("cfg"), sessionId: a, changes: { mode: info.otherMode } });
  assert.equal(configured.type, "request.completed", JSON.stringify(configured));

  if (caps.includes("session.list")) {
    const listed = await ask(connection, { type: "sessions", requestId: rid("ls"), cwd: workdir });
    assert.equal(listed.type, "sessions", JSON.stringify(listed));
  }

  // An interrupt of a streaming turn.
  const since = connection.events.length;
  const slow = await startTurn(connection, a, "SLOW please tell a long story");
  if (info.textAtEnd) {
    // No text before the model is done: interrupt once the slow request reached the model.
    const deadline = Date.now() + STEP_MS;
    while (!JSON.stringify(await mock.requests()).includes("SLOW please tell a long story")) {
      assert.ok(Date.now() < deadline, "the slow turn reaches the model");
      await sleep(50);
    }
  } else {
    await waitEvent(
      connection,
      (e) => e.type === "timeline.item" && e.sessionId === a && e.item.type === "assistant_message" && e.item.text,
      "the slow turn's streaming text",
      STEP_MS,
      since,
    );
  }
  const interrupted = await ask(connection, { type: "session.interrupt", requestId: rid("int"), sessionId: a });
  assert.equal(interrupted.type, "request.completed", JSON.stringify(interrupted));
  const canceled = await turnEnd(connection, a, slow);
  assert.equal(canceled.state, "canceled", JSON.stringify(canceled));

  const closedA = await ask(connection, { type: "session.close", requestId: rid("close"), sessionId: a });
  assert.equal(closedA.type, "request.completed", JSON.stringify(closedA));

  if (caps.includes("session.persistence")) {
    const handle = [...connection.events]
      .reverse()
      .find((e) => e.sessionId === a && (e.type === "session.persistence" || e.type === "session.opened") && e.persistence)?.persistence;
    assert.ok(handle, "a persistence handle");
    const b = `b-${generation}`;
    const before = connection.events.length;
    await open(connection, b, config, { persistence: handle, history: "replay" });
    const replayed = connection.events.slice(before).filter((e) => e.type === "timeline.item" && e.sessionId === b);
    assert.ok(replayed.length > 0, "replayed items before session.ready");
    await ask(connection, { type: "session.close", requestId: rid("close"), sessionId: b });
    if (generation === "newest") {
      // An archived agent's history, as the newer daemon reads it (IPC `provider.history`):
      // the rows a reopen replays, without opening a session on the connection.
      assert.equal(registered.hasHistoryReader, true, "readSessionHistory is registered");
      const quiet = connection.events.length;
      const started = Date.now();
      const read = { persistence: handle, cwd: workdir };
      if (request.launch) read.launch = request.launch;
      const history = await host.history(id, read);
      const took = Date.now() - started;
      assert.equal(connection.events.length, quiet, "the read announced nothing on the connection");
      const rows = (items) => items.filter((i) => i.type === "user_message" || i.type === "assistant_message").map((i) => `${i.type}:${i.text}`);
      assert.deepEqual(rows(history.items), rows(replayed.map((e) => e.item)), "the history is what the replay was");
      mkdirSync(path.join(repoRoot, "target"), { recursive: true });
      const excerpt = JSON.stringify(history.items.slice(0, 4)).slice(0, 1200);
      writeFileSync(path.join(repoRoot, "target", "paseo-host-history.txt"), `${id} (${took} ms, ${history.items.length} rows): ${excerpt}\n`, { flag: "a" });
    }
  }

  await connection.close();
  const processes = descendants(host.child.pid);
  const stopped = await host.stop();
  await sleep(100);
  const left = processes.filter((p) => alive(p.pid));
  assert.equal(stopped.escalated, null, `the plugin process exited on shutdown within 2 s (${JSON.stringify(stopped)})`);
  assert.deepEqual(left, [], "no bridge or CLI outlives the plugin process");

  const stats = connection.stats;
  row.note = `shutdown ${stopped.exitedAfterMs} ms`;
  assert.deepEqual(stats.refused, [], "the host refused no event");
  assert.equal(stats.failure, null, "the connection never failed");
  assert.ok(!connection.events.some((e) => e.type === "session.runtime_failed"), "no session failed");
  if (info.cli) reportOk(info.cli, cli, `paseo-host-${generation}`);
}

test("every provider through the emulated Paseo host, both generations", { concurrency: JOBS }, async (t) => {
  requireBinary();
  assert.ok(existsSync(mockBinary()), `mock-llm not found at ${mockBinary()}: cargo build -p mock-llm`);
  const started = Date.now();
  const jobs = [];
  for (const id of providerIds()) {
    for (const generation of GENERATIONS.filter((g) => runsOn(id, g))) {
      jobs.push(t.test(`${id} on ${generation}`, { timeout: 600_000 }, (st) => scenario(st, id, generation)));
    }
  }
  await Promise.allSettled(jobs);
  const lines = [
    `Paseo host emulator (${Math.round((Date.now() - started) / 1000)} s, ${JOBS} at a time): provider x host generation -> events delivered / refused`,
    `| provider | ${GENERATIONS.join(" | ")} |`,
    `|---|${GENERATIONS.map(() => "---").join("|")}|`,
  ];
  for (const id of providerIds()) {
    const cells = GENERATIONS.map((g) => {
      const r = results.find((x) => x.provider === id && x.generation === g);
      if (!r) return runsOn(id, g) ? "not run" : "– (PASEO_HOST_OLD)";
      if (r.note.startsWith("SKIPPED")) return r.note;
      return `${r.delivered} / ${r.refused} (${r.note || "failed"})`;
    });
    lines.push(`| ${id} | ${cells.join(" | ")} |`);
  }
  mkdirSync(path.join(repoRoot, "target"), { recursive: true });
  writeFileSync(path.join(repoRoot, "target", "paseo-host-report.txt"), `${lines.join("\n")}\n`);
  for (const line of lines) t.diagnostic(line);
});
