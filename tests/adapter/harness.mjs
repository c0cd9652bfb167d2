// Test helpers for the Paseo adapter: compile it, load it with a fake Paseo server, drive the
// real `agent-bridge` binary, watch its processes.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
export const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../..");

/** The binary under test: `AGENT_BRIDGE_BIN`, else the debug build of this workspace. */
export const bridgeBinary = path.resolve(
  repoRoot,
  process.env.AGENT_BRIDGE_BIN || "target/debug/agent-bridge",
);

export function requireBinary() {
  assert.ok(
    existsSync(bridgeBinary),
    `agent-bridge binary not found at ${bridgeBinary}: run \`cargo build -p agent-bridge\` ` +
      "or set AGENT_BRIDGE_BIN",
  );
}

/** The adapter's TypeScript sources, relative to the repository root. */
export function adapterSources() {
  const server = readdirSync(path.join(repoRoot, "server"))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `server/${name}`);
  return ["index.server.ts", ...server];
}

let compiled = null;

/** Transpiles the adapter to CommonJS in a temp folder (once per test process). */
export function compileAdapter() {
  if (compiled) return compiled;
  const ts = require("typescript");
  const outDir = mkdtempSync(path.join(tmpdir(), "agent-bridge-adapter-"));
  for (const file of adapterSources()) {
    const source = readFileSync(path.join(repoRoot, file), "utf8");
    const output = ts.transpileModule(source, {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        sourceMap: false,
      },
    });
    assert.deepEqual(output.diagnostics ?? [], [], `transpiling ${file}`);
    const target = path.join(outDir, file.replace(/\.ts$/, ".js"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, output.outputText);
  }
  compiled = path.join(outDir, "index.server.js");
  return compiled;
}

/** One compiled adapter module, e.g. `adapterModule("json-rpc")` for `server/json-rpc.ts`. */
export function adapterModule(name) {
  return require(path.join(path.dirname(compileAdapter()), "server", `${name}.js`));
}

/** A stand-in for Paseo's `PluginServerContext` that records registrations. */
export function fakeServer() {
  const providers = [];
  return {
    providers,
    registerProvider(registration) {
      providers.push(registration);
    },
  };
}

/**
 * Loads the adapter against the repository's plugin folder and the binary under test, with the
 * demo provider enabled (`AGENT_BRIDGE_DEMO=1`) unless `env` says otherwise.
 */
export function loadAdapter({ env = {} } = {}) {
  const saved = {};
  const wanted = {
    AGENT_BRIDGE_PLUGIN_DIR: repoRoot,
    AGENT_BRIDGE_BIN: bridgeBinary,
    AGENT_BRIDGE_DATA_DIR: mkdtempSync(path.join(tmpdir(), "agent-bridge-data-")),
    AGENT_BRIDGE_DEMO: "1",
    ...env,
  };
  for (const [key, value] of Object.entries(wanted)) {
    saved[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  const contribute = require(compileAdapter()).default;
  const server = fakeServer();
  const cleanup = contribute(server);
  return {
    server,
    cleanup,
    provider(id = "demo") {
      const found = server.providers.find((provider) => provider.id === id);
      assert.ok(found, `provider ${id} registered`);
      return found;
    },
    /** Puts the environment back (the binary path is read again at each bridge start). */
    restoreEnv() {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    },
  };
}

/** Whether `promise` settles without waiting for any I/O (e.g. an answer from the bridge). */
export async function settlesAtOnce(promise) {
  const settled = promise.then(
    () => true,
    () => true,
  );
  const ioTurn = new Promise((resolve) => setImmediate(() => resolve(false)));
  return Promise.race([settled, ioTurn]);
}

/** Collects `console.error` lines until the test ends. */
export function captureConsoleError(t) {
  const logged = [];
  const original = console.error;
  console.error = (...args) => logged.push(args.join(" "));
  t.after(() => {
    console.error = original;
  });
  return logged;
}

/** Records a connection's events and waits for the ones a test needs. */
export function recorder(connection) {
  const events = [];
  const waiters = new Set();
  const unsubscribe = connection.onEvent((event) => {
    events.push(event);
    for (const waiter of [...waiters]) waiter();
  });
  function waitFor(predicate, label = "event", timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = events.find(predicate);
        if (!found) return false;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${label}; got:\n${events.map((e) => JSON.stringify(e)).join("\n")}`,
          ),
        );
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  }
  return { events, waitFor, unsubscribe };
}

/**
 * pids of this process's `agent-bridge serve` children (Linux `/proc`); `name` is the basename
 * of the program or script run.
 */
export function bridgeChildren(name = path.basename(bridgeBinary)) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv.includes("serve") && argv.some((arg) => path.basename(arg) === name)) {
        pids.push(Number(entry));
      }
    } catch {
      // the process went away while we looked
    }
  }
  return pids;
}

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code === "ESRCH") return false;
    throw error;
  }
  // A zombie still answers signal 0; it is gone for our purposes.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

export async function waitUntil(condition, label, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function readPluginJson() {
  return JSON.parse(readFileSync(path.join(repoRoot, "plugin.json"), "utf8"));
}

/** `[workspace.package] version` of Cargo.toml: the one version of every package. */
export function workspaceVersion() {
  const cargo = readFileSync(path.join(repoRoot, "Cargo.toml"), "utf8");
  const section = cargo.split(/^\[/m).find((s) => s.startsWith("workspace.package]"));
  const version = section?.match(/^version\s*=\s*"([^"]+)"/m)?.[1];
  assert.ok(version, "Cargo.toml has a [workspace.package] version");
  return version;
}

/**
 * Compiles `<dir>/index.server.ts` the way Paseo does (esbuild: one CommonJS bundle, the SDK
 * external) and evaluates it the way its plugin process does (`globalThis.eval` of a factory
 * called with a runtime `require`, no `__dirname`). Returns the module's exports.
 */
export function loadLikePaseo(dir) {
  const { buildSync } = require("esbuild");
  const built = buildSync({
    stdin: {
      contents: readFileSync(path.join(dir, "index.server.ts"), "utf8"),
      loader: "tsx",
      resolveDir: dir,
      sourcefile: path.join(dir, "index.server.ts"),
    },
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: ["@getpaseo/plugin", "@getpaseo/plugin/*", "zod"],
    logLevel: "silent",
    write: false,
  });
  const bundle = `(function(require) {\nconst module = { exports: {} };\nconst exports = module.exports;\n${built.outputFiles[0].text}\nreturn module.exports;\n})`;
  const evaluate = globalThis.eval;
  const factory = evaluate(bundle);
  return factory((name) => {
    assert.ok(name.startsWith("node:"), `runtime require of ${name}`);
    return require(name);
  });
}

/** The connect request Paseo sends: every capability it knows, version 1. */
export const PASEO_CAPABILITIES = [
  "prompt.message",
  "prompt.command",
  "prompt.image",
  "prompt.output_schema",
  "prompt.steer",
  "session.archive",
  "session.unarchive",
  "session.configure",
  "session.list",
  "session.persistence",
  "session.revert.conversation",
  "session.revert.files",
  "session.revert.both",
  "session.subsession",
  "permission",
  "permission.tool_policy",
  "timeline.plugin",
  "session.can_stop_runtime",
];

export function connectRequest(capabilities = PASEO_CAPABILITIES) {
  return { versions: [1], capabilities };
}

export function openSessionInput(sessionId, requestId = `open-${sessionId}`) {
  return {
    type: "session.open",
    requestId,
    sessionId,
    config: { cwd: repoRoot, env: {}, mcpServers: {}, settings: {} },
    history: "skip",
  };
}

export function promptInput(sessionId, clientMessageId, text) {
  return {
    type: "session.prompt",
    sessionId,
    prompt: {
      clientMessageId,
      delivery: "auto",
      input: { type: "message", content: [{ type: "text", text }] },
    },
  };
}
