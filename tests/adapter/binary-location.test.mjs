// Which binary the adapter runs (server/binary-location.ts).

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { adapterModule, loadAdapter, readPluginJson } from "./harness.mjs";

const { resolveBridgeBinary, platformPackageName } = adapterModule("binary-location");
const HOST = { platform: "linux", arch: "x64" };
const MANIFEST = { main: "target/release/agent-bridge", providers: [] };

function executable(file) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, 0o755);
}

/**
 * An npm install: <root>/node_modules/@agent-bridge/paseo (the plugin folder) and, when asked,
 * the platform package hoisted next to it and a local build inside it.
 */
function install({ platformPackage = false, binaryInPackage = true, localBuild = false } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), "agent-bridge-resolve-"));
  const dir = path.join(root, "node_modules/@agent-bridge/paseo");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), '{"name":"@agent-bridge/paseo"}\n');
  const packageDir = path.join(root, "node_modules/@agent-bridge/linux-x64");
  if (platformPackage) {
    mkdirSync(packageDir, { recursive: true });
    writeFileSync(path.join(packageDir, "package.json"), '{"name":"@agent-bridge/linux-x64"}\n');
    if (binaryInPackage) executable(path.join(packageDir, "bin/agent-bridge"));
  }
  if (localBuild) executable(path.join(dir, "target/release/agent-bridge"));
  return { root, dir, packageDir };
}

test("platform package names follow Node's platform and arch", () => {
  assert.equal(platformPackageName({ platform: "darwin", arch: "arm64" }), "@agent-bridge/darwin-arm64");
  assert.equal(platformPackageName({ platform: "win32", arch: "x64" }), "@agent-bridge/win32-x64");
  const win = install();
  mkdirSync(path.join(win.root, "node_modules/@agent-bridge/win32-x64/bin"), { recursive: true });
  writeFileSync(path.join(win.root, "node_modules/@agent-bridge/win32-x64/package.json"), "{}");
  writeFileSync(path.join(win.root, "node_modules/@agent-bridge/win32-x64/bin/agent-bridge.exe"), "");
  assert.equal(
    resolveBridgeBinary(win.dir, MANIFEST, {}, { platform: "win32", arch: "x64" }),
    path.join(win.root, "node_modules/@agent-bridge/win32-x64/bin/agent-bridge.exe"),
  );
});

test("the platform package comes first, then plugin.json's main; AGENT_BRIDGE_BIN overrides both", () => {
  const both = install({ platformPackage: true, localBuild: true });
  assert.equal(resolveBridgeBinary(both.dir, MANIFEST, {}, HOST), path.join(both.packageDir, "bin/agent-bridge"));
  const local = install({ localBuild: true });
  assert.equal(resolveBridgeBinary(local.dir, MANIFEST, {}, HOST), path.join(local.dir, "target/release/agent-bridge"));
  assert.equal(
    resolveBridgeBinary(both.dir, MANIFEST, { AGENT_BRIDGE_BIN: "/opt/ab" }, HOST),
    "/opt/ab",
  );
  // A package nested under the plugin folder (npm did not hoist it) is found too.
  const nested = install();
  executable(path.join(nested.dir, "node_modules/@agent-bridge/linux-x64/bin/agent-bridge"));
  writeFileSync(path.join(nested.dir, "node_modules/@agent-bridge/linux-x64/package.json"), "{}");
  assert.equal(
    resolveBridgeBinary(nested.dir, MANIFEST, {}, HOST),
    path.join(nested.dir, "node_modules/@agent-bridge/linux-x64/bin/agent-bridge"),
  );
});

test("without a binary the error names every place it looked", () => {
  const none = install();
  assert.throws(
    () => resolveBridgeBinary(none.dir, MANIFEST, {}, HOST),
    (error) => {
      const message = error.message;
      assert.match(message, /no agent-bridge binary for linux-x64/);
      assert.match(message, /AGENT_BRIDGE_BIN \(not set\)/);
      assert.match(message, /@agent-bridge\/linux-x64: not installed \(searched /);
      for (const dir of [
        path.join(none.dir, "node_modules/@agent-bridge/linux-x64"),
        path.join(none.root, "node_modules/@agent-bridge/linux-x64"),
      ]) {
        assert.ok(message.includes(dir), `names ${dir}: ${message}`);
      }
      assert.ok(message.includes(`${path.join(none.dir, "target/release/agent-bridge")} (missing)`), message);
      return true;
    },
  );
  const empty = install({ platformPackage: true, binaryInPackage: false });
  assert.throws(
    () => resolveBridgeBinary(empty.dir, MANIFEST, {}, HOST),
    new RegExp(`installed at ${empty.packageDir} but ${path.join(empty.packageDir, "bin/agent-bridge")} is missing`),
  );
});

test("a missing binary makes every provider unrunnable, with the places looked at", async (t) => {
  const none = install();
  writeFileSync(path.join(none.dir, "plugin.json"), JSON.stringify(readPluginJson()));
  const adapter = loadAdapter({ env: { AGENT_BRIDGE_PLUGIN_DIR: none.dir, AGENT_BRIDGE_BIN: undefined } });
  t.after(async () => {
    await adapter.cleanup();
    adapter.restoreEnv();
  });
  const availability = await adapter.provider("claude-bridge").checkAvailability({ scope: "global" });
  assert.equal(availability.status, "unrunnable");
  assert.match(availability.diagnostic, /not installed \(searched /);
  assert.match(availability.diagnostic, /target\/release\/agent-bridge \(missing\)/);
});
