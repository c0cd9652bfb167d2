// The registration's newer host hooks: `command` (the CLI's default argv, from plugin.json, from
// which a newer Paseo builds `request.launch`), `status()` (the newer plugin process's
// availability hook) beside `checkAvailability`, and a connect that fails with the doctor's
// diagnostic when the CLI cannot run. Against the real `agent-bridge` binary.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  captureConsoleError,
  connectRequest,
  loadAdapter,
  openSessionInput,
  promptInput,
  readPluginJson,
  recorder,
  requireBinary,
} from "./harness.mjs";

function adapterFor(t, options) {
  const adapter = loadAdapter(options);
  t.after(async () => {
    await adapter.cleanup();
    adapter.restoreEnv();
  });
  return adapter;
}

const MISSING = "/nonexistent/agent-bridge-test/claude";
const missingLaunch = { command: MISSING, args: [], env: { PATH: "/usr/bin:/bin" } };

test("each CLI provider registers its default command; the demo, which has none, none", (t) => {
  const adapter = adapterFor(t);
  for (const declared of readPluginJson().providers) {
    const registered = adapter.provider(declared.id);
    if (declared.command.length > 0) {
      assert.deepEqual(registered.command, declared.command, declared.id);
      assert.ok(registered.command.every((part) => part.trim() !== ""), declared.id);
    } else {
      assert.equal(registered.command, undefined, declared.id);
    }
    assert.equal(typeof registered.status, "function", `${declared.id} has status()`);
    assert.equal(typeof registered.checkAvailability, "function", `${declared.id} keeps checkAvailability()`);
  }
});

test("status() probes the launch it is given and answers the availability", async (t) => {
  requireBinary();
  const adapter = adapterFor(t);
  const claude = adapter.provider("claude-bridge");
  const missing = await claude.status({ launch: missingLaunch, timeoutMs: 5000 });
  assert.equal(missing.status, "missing", JSON.stringify(missing));
  assert.match(missing.diagnostic, new RegExp(MISSING));
  const demo = await adapter.provider("demo").status({});
  assert.deepEqual(demo, { status: "available" });
});

test("connect fails with the doctor's diagnostic when the CLI is missing", async (t) => {
  requireBinary();
  const adapter = adapterFor(t);
  await assert.rejects(
    adapter.provider("claude-bridge").connect({ ...connectRequest(), launch: missingLaunch }),
    (error) => {
      assert.match(error.message, new RegExp(MISSING));
      return true;
    },
  );
  // The demo needs no CLI: it connects.
  const connection = await adapter.provider("demo").connect(connectRequest());
  await connection.close();
});

test("connect answers inside Paseo's 30 s even when the availability probe hangs", async (t) => {
  requireBinary();
  const logged = captureConsoleError(t);
  const adapter = adapterFor(t);
  // The demo's probe sleeps this long (its availability and catalog key wait on it).
  const launch = { command: "demo", args: [], env: { ...process.env, DEMO_PROBE_DELAY_MS: "60000" } };
  const started = Date.now();
  const connection = await adapter.provider("demo").connect({ ...connectRequest(), launch });
  const took = Date.now() - started;
  assert.ok(took < 25_000, `connected in ${took} ms, inside the 25 s budget`);
  assert.ok(
    logged.some((l) => /availability not known within \d+ ms; connecting without it/.test(l)),
    logged.join("\n"),
  );
  await connection.close();
});

test("getCatalogCacheKey keys the launch Paseo names in the options", async (t) => {
  requireBinary();
  const adapter = adapterFor(t);
  const provider = adapter.provider("codex-bridge");
  const launch = (home) => ({ command: "codex", args: [], env: { HOME: home } });
  const a = await provider.getCatalogCacheKey({ scope: "global", launch: launch("/home/a") });
  const b = await provider.getCatalogCacheKey({ scope: "global", launch: launch("/home/b") });
  assert.equal(typeof a, "string");
  assert.notEqual(a, b, "two launches, two keys");
  assert.equal(a, await provider.getCatalogCacheKey({ scope: "global", launch: launch("/home/a") }));
});

test("readSessionHistory reads a closed session's rows without opening one", async (t) => {
  requireBinary();
  const adapter = adapterFor(t);
  const provider = adapter.provider("demo");
  const connection = await provider.connect(connectRequest());
  const seen = recorder(connection);
  const open = openSessionInput("kept");
  await connection.send({ ...open, config: { ...open.config, persist: true } });
  const opened = await seen.waitFor((e) => e.type === "session.opened" && e.sessionId === "kept", "opened");
  await seen.waitFor((e) => e.type === "session.ready" && e.sessionId === "kept", "ready");
  await connection.send(promptInput("kept", "m1", "remember the tide"));
  await seen.waitFor((e) => e.type === "session.turn" && e.sessionId === "kept" && e.state === "completed", "turn");
  await connection.send({ type: "session.close", requestId: "close-kept", sessionId: "kept" });
  await seen.waitFor((e) => e.type === "request.completed" && e.requestId === "close-kept", "closed");
  const before = seen.events.length;

  const history = await provider.readSessionHistory({ persistence: opened.persistence, cwd: open.config.cwd });
  assert.deepEqual(history.coverage, { kind: "complete" });
  assert.ok(
    history.items.some((i) => i.type === "user_message" && i.text === "remember the tide"),
    JSON.stringify(history.items),
  );
  assert.ok(history.items.some((i) => i.type === "assistant_message"), JSON.stringify(history.items));
  assert.equal(seen.events.length, before, "no event on the connection");
  await connection.close();
});
