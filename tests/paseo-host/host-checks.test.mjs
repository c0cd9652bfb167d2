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
  await assert.rejects(connection.send(open), /Invalid provider input: config\.settings/);
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
