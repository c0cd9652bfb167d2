// The registration's newer host hooks: `command` (the CLI's default argv, from plugin.json, from
// which a newer Paseo builds `request.launch`), `status()` (the newer plugin process's
// availability hook) beside `checkAvailability`, and a connect that fails with the doctor's
// diagnostic when the CLI cannot run. Against the real `agent-bridge` binary.

import assert from "node:assert/strict";
import { test } from "node:test";
import { connectRequest, loadAdapter, readPluginJson, requireBinary } from "./harness.mjs";

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
