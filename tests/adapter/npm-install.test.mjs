// The npm packages of scripts/package.sh, installed the way `paseo plugin install
// npm:@agent-bridge/paseo@VERSION` installs them, on a machine without Rust: npm (from a loopback
// registry serving the tarballs) with Paseo's flags, then the manifest's `build` step, then the
// adapter loaded the way Paseo loads it, and a demo turn. cargo is not on PATH for any of it, and
// the adapter is not told where the binary is: it must find it in the platform package.
//
// The host's platform package holds the binary the other suites test when AGENT_BRIDGE_BIN names
// one (scripts/test-all.sh: the debug build, so CI does not spend minutes on a release build
// only to pack it), else this workspace's release build (package.sh builds it with cargo when it
// is stale); the other four hold a stand-in that fails when run, and npm must not install them.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  bridgeChildren,
  connectRequest,
  fakeServer,
  isAlive,
  loadLikePaseo,
  openSessionInput,
  promptInput,
  readPluginJson,
  recorder,
  repoRoot,
  workspaceVersion,
} from "./harness.mjs";
import { startRegistry } from "./npm-registry.mjs";

const HOST = `${process.platform}-${process.arch}`;
const { main: MAIN, platforms: PLATFORMS } = JSON.parse(
  readFileSync(path.join(repoRoot, "npm/platforms.json"), "utf8"),
);
const OTHERS = PLATFORMS.filter((p) => `${p.os}-${p.cpu}` !== HOST);

/** PATH without any folder holding cargo, rustc or rustup. */
function pathWithoutRust() {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir && !["cargo", "rustc", "rustup"].some((t) => existsSync(path.join(dir, t))))
    .join(path.delimiter);
}

/** The environment of the install and of the daemon: no Rust, npm pointed at `registry` only. */
function machineWithoutRust(scratch, registry) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|CARGO|RUSTUP|AGENT_BRIDGE_)/i.test(key)) env[key] = value;
  }
  writeFileSync(path.join(scratch, "npmrc"), "");
  writeFileSync(path.join(scratch, "global-npmrc"), "");
  return {
    ...env,
    PATH: pathWithoutRust(),
    HOME: path.join(scratch, "home"),
    CARGO_HOME: path.join(scratch, "no-cargo-home"),
    RUSTUP_HOME: path.join(scratch, "no-rustup-home"),
    npm_config_registry: registry,
    npm_config_userconfig: path.join(scratch, "npmrc"),
    npm_config_globalconfig: path.join(scratch, "global-npmrc"),
    npm_config_cache: path.join(scratch, "npm-cache"),
    npm_config_update_notifier: "false",
  };
}

/** Like `run`, without blocking the event loop (the registry answers from this process). */
function runAsync(command, args, { timeout, ...options }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let output = `$ ${command} ${args.join(" ")}\n`;
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.on("error", reject);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      try {
        assert.equal(status, 0, `${output}\n(exit ${status}, signal ${signal})`);
        resolve({ output });
      } catch (error) {
        reject(error);
      }
    });
  });
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  const output = `$ ${command} ${args.join(" ")}\n${result.stdout ?? ""}${result.stderr ?? ""}`;
  assert.equal(result.error, undefined, `${output}\n${result.error}`);
  assert.equal(result.status, 0, output);
  return { ...result, output };
}

test("npm install of the packed packages without cargo: build step, Paseo load, demo turn", async (t) => {
  const scratch = mkdtempSync(path.join(tmpdir(), "agent-bridge-npm-"));
  const version = workspaceVersion();
  const saved = { cwd: process.cwd(), env: { ...process.env } };
  let registry = null;
  let cleanup = () => {};
  // One hook, in this order: stop the bridge, put the process back, stop the registry, delete.
  t.after(async () => {
    await cleanup();
    process.chdir(saved.cwd);
    for (const key of Object.keys(process.env)) if (!(key in saved.env)) delete process.env[key];
    Object.assign(process.env, saved.env);
    await registry?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  // 1. Pack: this machine's package (AGENT_BRIDGE_BIN, else the release build), stand-ins for the others.
  const standIn = path.join(scratch, "wrong-platform");
  writeFileSync(standIn, "#!/bin/sh\necho 'the wrong platform package was installed' >&2\nexit 1\n");
  chmodSync(standIn, 0o755);
  const dist = path.join(scratch, "dist");
  const packed = run(
    "sh",
    [
      "scripts/package.sh",
      "--out",
      dist,
      ...OTHERS.flatMap((p) => ["--binary", `${p.os}-${p.cpu}=${standIn}`]),
      ...(process.env.AGENT_BRIDGE_BIN ? ["--binary", `${HOST}=${process.env.AGENT_BRIDGE_BIN}`] : []),
    ],
    { cwd: repoRoot, timeout: 30 * 60 * 1000 },
  );
  const tarballs = readdirSync(dist).filter((f) => f.endsWith(".tgz")).sort();
  const tarballOf = (name) => `${name.slice(1).replace("/", "-")}-${version}.tgz`;
  assert.deepEqual(tarballs, [MAIN, ...PLATFORMS.map((p) => p.package)].map(tarballOf).sort(), packed.output);

  // 2. Install as Paseo does (managed-source/npm.ts): one dependency, its flags.
  registry = await startRegistry(dist);
  const env = machineWithoutRust(scratch, registry.url);
  const noRust = spawnSync("sh", ["-c", "command -v cargo || command -v rustc || command -v rustup"], { env });
  assert.notEqual(noRust.status, 0, `cargo is still reachable: ${noRust.stdout}`);
  const paseoHome = path.join(scratch, "paseo-home");
  const installRoot = path.join(paseoHome, "plugins/agent-bridge/0b7e4f4e-5c1a-4c4e-9d8e-4b1d2a3c4d5e");
  mkdirSync(installRoot, { recursive: true });
  writeFileSync(
    path.join(installRoot, "package.json"),
    JSON.stringify({
      name: "paseo-plugin-installation",
      version: "1.0.0",
      private: true,
      dependencies: { [MAIN]: version },
    }),
  );
  const npmFlags = [
    "install",
    "--ignore-scripts",
    "--legacy-peer-deps",
    "--no-audit",
    "--no-fund",
    "--package-lock=true",
    "--lockfile-version=3",
    "--include=prod",
    "--omit=dev",
    "--global=false",
    "--workspaces=false",
  ];
  const installed = await runAsync("npm", npmFlags, { cwd: installRoot, env, timeout: 120_000 });
  const scope = path.join(installRoot, "node_modules/@agent-bridge");
  assert.deepEqual(
    readdirSync(scope).sort(),
    [MAIN.split("/")[1], HOST].sort(),
    `only the plugin and this machine's package are installed\n${installed.output}`,
  );
  for (const p of PLATFORMS) {
    assert.ok(registry.requests.includes(`/${p.package}`), `npm looked up ${p.package}`);
  }
  const downloads = registry.requests.filter((r) => r.startsWith("/-/")).sort();
  assert.deepEqual(downloads, [MAIN, `@agent-bridge/${HOST}`].map((n) => `/-/${tarballOf(n)}`).sort());

  // 3. The manifest's build step, without cargo.
  const pluginDir = path.join(scope, MAIN.split("/")[1]);
  assert.equal(existsSync(path.join(pluginDir, "target")), false, "no local build to fall back on");
  const manifest = JSON.parse(readFileSync(path.join(pluginDir, "paseo-plugin.json"), "utf8"));
  const packagedBinary = path.join(scope, HOST, "bin/agent-bridge");
  for (const [command, ...args] of manifest.build) {
    const step = run(command, args, { cwd: pluginDir, env, timeout: 60_000 });
    assert.ok(
      step.stderr.includes(`using agent-bridge ${version} from @agent-bridge/${HOST} (${packagedBinary})`),
      step.output,
    );
  }
  assert.equal(JSON.parse(readFileSync(path.join(pluginDir, "plugin.json"), "utf8")).version, version);

  // 4. Load it the way Paseo does: the daemon's cwd, the folder from config.json, no hints.
  writeFileSync(
    path.join(paseoHome, "config.json"),
    JSON.stringify({
      pluginsEnabled: true,
      plugins: { "agent-bridge": { path: pluginDir, enabled: true } },
    }),
  );
  const daemonCwd = path.join(scratch, "daemon");
  mkdirSync(daemonCwd);
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, env, { PASEO_HOME: paseoHome, AGENT_BRIDGE_DEMO: "1" });
  process.chdir(daemonCwd);
  const server = fakeServer();
  cleanup = loadLikePaseo(pluginDir).default(server);
  assert.deepEqual(
    server.providers.map((p) => p.id),
    readPluginJson().providers.map((p) => p.id),
  );

  // 5. A demo turn through the bridge the adapter found.
  const connection = await server.providers.find((p) => p.id === "demo").connect(connectRequest());
  const events = recorder(connection);
  const [pid] = bridgeChildren();
  assert.ok(pid, "a bridge runs");
  assert.equal(realpathSync(`/proc/${pid}/exe`), realpathSync(packagedBinary), "the platform package's binary");
  assert.equal(realpathSync(`/proc/${pid}/cwd`), realpathSync(pluginDir), "cwd is the plugin folder");
  await connection.send(openSessionInput("npm-1"));
  await events.waitFor((e) => e.type === "session.ready" && e.sessionId === "npm-1", "session.ready");
  await connection.send(promptInput("npm-1", "m1", "Hello from npm"));
  const done = await events.waitFor(
    (e) => e.type === "session.turn" && e.state !== "started" && e.sessionId === "npm-1",
    "terminal session.turn",
  );
  assert.equal(done.state, "completed");
  const reply = events.events.findLast(
    (e) => e.type === "timeline.item" && e.item.type === "assistant_message",
  );
  assert.ok(reply && reply.item.text.length > 0, "the demo replied");
  await connection.close();
  await cleanup();
  cleanup = () => {};
  assert.equal(isAlive(pid), false, "the bridge stopped with the plugin");

  // 6. The same package as an Agentty plugin (README "Use it in Agentty"): the tarball unpacked
  // into a folder named after the manifest's id, its dependencies installed there, then the
  // manifest's `main` started the way Agentty starts it (the folder as working directory, the
  // AGENTTY_* variables), without AGENT_BRIDGE_BIN: it must find the platform package's binary.
  const agentty = path.join(scratch, "agentty");
  const folder = path.join(agentty, "plugins/agent-bridge");
  mkdirSync(folder, { recursive: true });
  run("tar", ["-xzf", path.join(dist, tarballOf(MAIN)), "--strip-components=1", "-C", folder], {
    env,
  });
  const agenttyManifest = JSON.parse(readFileSync(path.join(folder, "agentty-plugin.json"), "utf8"));
  assert.equal(agenttyManifest.id, path.basename(folder));
  assert.equal(agenttyManifest.version, version);
  await runAsync("npm", ["install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: folder,
    env,
    timeout: 120_000,
  });
  const agenttyBinary = path.join(folder, "node_modules/@agent-bridge", HOST, "bin/agent-bridge");
  assert.ok(existsSync(agenttyBinary), "the platform package is in the plugin folder");
  await agenttyTurnOn(folder, agenttyManifest.main, agenttyBinary, {
    ...env,
    AGENTTY_PLUGIN_ID: agenttyManifest.id,
    AGENTTY_PLUGIN_DIR: folder,
    AGENTTY_PLUGIN_DATA: path.join(agentty, "plugin-data/agent-bridge"),
    AGENTTY_VERSION: "2.0.0",
    AGENTTY_LANGUAGE: "en",
  });
});

/**
 * Starts the Agentty plugin in `folder` by its `main`, says `initialize` and `panel/open`, waits
 * for its first panel, checks that the process is `binary`, then `shutdown`: out within 1.5 s.
 */
function agenttyTurnOn(folder, main, binary, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(folder, main), [], { cwd: folder, env, stdio: "pipe" });
    let stderr = "";
    let buffered = "";
    let stoppedAt = 0;
    const fail = (why) => {
      child.kill("SIGKILL");
      reject(new Error(`${why}\nstderr: ${stderr}`));
    };
    const timer = setTimeout(() => fail("no panel within 30 s"), 30_000);
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) {
        const message = JSON.parse(line);
        if (message.method !== "ui/setPanel" || stoppedAt) continue;
        try {
          assert.equal(realpathSync(`/proc/${child.pid}/exe`), realpathSync(binary));
          assert.equal(realpathSync(`/proc/${child.pid}/cwd`), realpathSync(folder));
        } catch (error) {
          fail(error.message);
          return;
        }
        stoppedAt = Date.now();
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "shutdown", params: {} })}\n`);
      }
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const took = Date.now() - stoppedAt;
      if (!stoppedAt) return reject(new Error(`exited before its panel (${code}, ${signal}): ${stderr}`));
      if (code !== 0 || took > 1500) return reject(new Error(`exit ${code} ${signal} after ${took} ms`));
      resolve();
    });
    const context = { workspace: null, pane: null, language: "en" };
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { apiVersion: 2, plugin: { id: "agent-bridge", dir: folder }, language: "en", context },
    };
    const open = { jsonrpc: "2.0", method: "panel/open", params: { context } };
    child.stdin.write(`${JSON.stringify(initialize)}\n${JSON.stringify(open)}\n`);
  });
}
