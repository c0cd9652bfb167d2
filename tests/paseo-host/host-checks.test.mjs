// The emulated host's own checks, each shown to refuse (so that passing scenarios mean they
// held): a connection selecting a capability or a version the host did not offer, a
// registration the plugin process refuses, and an input the host's schema refuses (rejected,
// and the connection closed, as Paseo's plugin process does).

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { PaseoHost } from "./host/runtime.mjs";
import { here, nodeWrapper, repoRoot, startHost, tempDir } from "./harness.mjs";
import { writeFileSync } from "node:fs";

const scripted = nodeWrapper(path.join(here, "fixtures/scripted-bridge.mjs"));

test("a connection selecting an unoffered capability or version is refused", async (t) => {
  const caps = await startHost(t, { generation: "0.9", bin: scripted, extra: { SCRIPTED_CAPS: "prompt.message,session.list" } });
  await assert.rejects(
    caps.connect("demo", { versions: [1], capabilities: ["prompt.message"] }),
    /unoffered capability: session\.list/,
  );
  const version = await startHost(t, { generation: "newest", bin: scripted, extra: { SCRIPTED_VERSION: "2" } });
  await assert.rejects(
    version.connect("demo", { versions: [1], capabilities: ["prompt.message"] }),
    /unoffered version: 2/,
  );
});

test("an input the host's schema refuses is rejected and its connection closed", async (t) => {
  const host = await startHost(t, { generation: "0.9", bin: scripted });
  const connection = await host.connect("demo", { versions: [1], capabilities: ["prompt.message"] });
  const open = {
    type: "session.open",
    requestId: "o",
    sessionId: "s",
    // 0.9 requires `settings` in the session config.
    config: { cwd: tempDir("host-checks-"), env: {}, mcpServers: {}, persist: false },
    history: "skip",
  };
  await assert.rejects(connection.send(open), /Invalid provider input: input\.config\.settings/);
  // The connection is closing (or closed): nothing more is taken.
  await assert.rejects(connection.send({ ...open, config: { ...open.config, settings: {} } }), /clos(ed|ing)/);
});

test("a registration the plugin process refuses fails the plugin's load", async () => {
  const dir = tempDir("bad-plugin-");
  writeFileSync(
    path.join(dir, "index.server.ts"),
    `export default function contribute(server: { registerProvider(p: unknown): void }) {
  server.registerProvider({ id: "Bad Id", label: "x", connect: async () => ({}) });
  return () => {};
}
`,
  );
  const host = new PaseoHost({ generation: "newest", pluginDir: dir, cwd: repoRoot, env: process.env });
  await assert.rejects(host.start(), /Invalid plugin provider ID: Bad Id/);
  await host.closed;
});

test("the compiler refuses an entry without one default export function", async () => {
  const dir = tempDir("bad-entry-");
  writeFileSync(path.join(dir, "index.server.ts"), "export const contribute = () => () => {};\n");
  const host = new PaseoHost({ generation: "0.9", pluginDir: dir, cwd: repoRoot, env: process.env });
  await assert.rejects(host.start(), /exactly one default export function/);
  assert.equal(host.child, undefined, "no plugin process was started");
});

test("an IPC request the strict schema refuses is fatal: the plugin process shuts down", async (t) => {
  const host = await startHost(t, { generation: "newest" });
  const launch = { command: "/bin/true", args: [], env: {} };
  // The status request is `{ launch? }` and nothing else (plugin-process-protocol.ts@743b27cd).
  await assert.rejects(host.status("codex-bridge", { launch, timeoutMs: 60_000 }), /Plugin process exited|stopping/);
  await host.closed;
  assert.match(host.fatal ?? "", /Invalid plugin process request: request: Unrecognized key/);
  // A valid one is answered by a plugin process that is running.
  const again = await startHost(t, { generation: "newest" });
  const status = await again.status("codex-bridge", { launch: { command: "/nonexistent/codex", args: [], env: {} } });
  assert.equal(status.status, "missing", JSON.stringify(status));
});

test("each generation's request schema takes what its daemon sends and refuses the other's", async () => {
  const newest = await import("./host/schemas-newest.mjs");
  const old = await import("./host/schemas-0.9.mjs");
  const launch = { command: "codex", args: [], env: { HOME: "/h" } };
  const key = { type: "provider.catalog_key", requestId: "r", providerId: "p", options: { scope: "global", launch } };
  assert.equal(newest.PluginProcessRequestSchema.safeParse(key).success, true);
  assert.equal(old.PluginProcessRequestSchema.safeParse(key).success, false, "0.9 knows no launch");
  const history = {
    type: "provider.history",
    requestId: "r",
    providerId: "p",
    request: { persistence: { version: 1, data: { id: "x" } }, cwd: "/w", launch },
  };
  assert.equal(newest.PluginProcessRequestSchema.safeParse(history).success, true);
  assert.equal(newest.PluginProcessRequestSchema.safeParse({ ...history, request: { ...history.request, history: "replay" } }).success, false);
  assert.equal(old.PluginProcessRequestSchema.safeParse(history).success, false, "0.9 reads no history");
});
