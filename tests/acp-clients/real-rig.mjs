// The real-CLI rig of the ACP client tests: the mock model server (tests/mock-llm, MOCK_LLM_BIN),
// each pinned CLI's hermetic environment as the Rust real-CLI tests build it (`mock-llm env CLI`,
// the recipes of tests/mock-llm/src/hermetic, not re-implemented here), and a plugin folder whose
// plugin.json holds the repo's own entry of the provider with the CLI's absolute path.
//
// A CLI that is not installed makes its test report itself: a `SKIPPED <cli> <test> <why>` line in
// AGENT_BRIDGE_CLI_REPORT (as tests/mock-llm/src/locator.rs writes them) and a skipped node test,
// or a failure when CI or AGENT_BRIDGE_REQUIRE_CLIS=1 asks for every CLI.

import { spawn, execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "../..");
export const bin = process.env.AGENT_BRIDGE_BIN ?? join(repo, "target/debug/agent-bridge");
const mockBin = process.env.MOCK_LLM_BIN ?? join(repo, "target/debug/mock-llm");

/**
 * The pinned CLIs' bin dirs, in the order of tests/mock-llm/src/locator.rs: each cache's
 * `node_modules/.bin`, then the same caches' `node22/node_modules/.bin` (kimi, droid, grok, pi-acp)
 * and `python/bin` (vibe-acp).
 */
function binDirs() {
  const dirs = [];
  if (process.env.AGENT_BRIDGE_CLI_BIN) dirs.push(process.env.AGENT_BRIDGE_CLI_BIN);
  if (process.env.AGENT_BRIDGE_CLI_CACHE) dirs.push(join(process.env.AGENT_BRIDGE_CLI_CACHE, "node_modules/.bin"));
  dirs.push(join(repo, ".cache/clis/node_modules/.bin"));
  const cacheOf = (d) => dirname(dirname(d));
  return [
    ...dirs,
    ...dirs.map((d) => join(cacheOf(d), "node22/node_modules/.bin")),
    ...dirs.map((d) => join(cacheOf(d), "python/bin")),
  ];
}

export function cliPath(name) {
  return binDirs()
    .map((d) => join(d, name))
    .find((p) => existsSync(p));
}

export function clisRequired() {
  const ci = process.env.CI ?? "";
  return (ci !== "" && ci !== "0" && ci.toLowerCase() !== "false") || process.env.AGENT_BRIDGE_REQUIRE_CLIS === "1";
}

function report(line) {
  if (process.env.AGENT_BRIDGE_CLI_REPORT) appendFileSync(process.env.AGENT_BRIDGE_CLI_REPORT, `${line}\n`);
}

/** `<cli> <version> <scenario> ok` in the CLI report, as report_ok writes it. */
export function reportOk(cli, scenario, env) {
  report(`${cli} ${cliVersion(cli, env)} ${scenario} ok`);
}

const versions = new Map();
/** `cli --version`, in the rig's `env` when given (node 22 or the venv first on its PATH). */
export function cliVersion(cli, env) {
  if (!versions.has(cli)) {
    let v = "unknown";
    try {
      const out = execFileSync(cliPath(cli), ["--version"], { encoding: "utf8", timeout: 30_000, env, stdio: ["ignore", "pipe", "ignore"] });
      v = out.split(/\s+/).find((t) => /^v?\d/.test(t))?.replace(/^v/, "").replace(/[.,;]+$/, "") ?? v;
    } catch {
      // A CLI without --version keeps "unknown".
    }
    versions.set(cli, v);
  }
  return versions.get(cli);
}

/**
 * The CLI's path, or `undefined` after skipping the node test `t` (of `client`) loudly (SKIPPED on stderr and
 * in the report); throws when missing CLIs are failures.
 */
export function requireCli(t, cli, client) {
  const path = cliPath(cli);
  if (path) return path;
  const msg = `real CLI \`${cli}\` not installed (looked in ${binDirs().join(", ")}); run tests/clis/install.sh or set AGENT_BRIDGE_CLI_BIN`;
  if (clisRequired()) throw new Error(`${msg} [required because CI or AGENT_BRIDGE_REQUIRE_CLIS=1 is set]`);
  console.error(`SKIPPED: ${cli} not installed -- ${msg}`);
  report(`SKIPPED ${cli} acp-clients:${client}:${t.name} not-installed`);
  t.skip(`${cli} not installed`);
  return undefined;
}

/** One mock model server for the whole file; `stop()` ends it. */
export async function startMock() {
  if (!existsSync(mockBin)) throw new Error(`mock-llm not built at ${mockBin} (cargo build -p mock-llm, or set MOCK_LLM_BIN)`);
  const child = spawn(mockBin, ["--port", "0"], { stdio: ["ignore", "pipe", "ignore"] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((ok, fail) => {
    child.once("exit", (code) => fail(new Error(`mock-llm exited with ${code}`)));
    lines.on("line", (l) => {
      if (l.startsWith("MOCK_LLM_URL=")) ok(l.slice("MOCK_LLM_URL=".length));
    });
  });
  const control = async (path, init) => {
    const res = await fetch(`${url}/_mock/${path}`, init);
    if (!res.ok) throw new Error(`mock-llm ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    port: Number(new URL(url).port),
    stop: () => child.kill("SIGTERM"),
    /** Adds a script (rules and steps, tests/mock-llm/src/script.rs) to the mock's. */
    script: (script) => control("script", { method: "POST", body: JSON.stringify(script) }),
    /** Resolves once a model request's body holds `text`; rejects after `ms`. */
    async saw(text, ms = 60_000) {
      const until = Date.now() + ms;
      while (!(await control("requests")).some((r) => JSON.stringify(r.body ?? "").includes(text))) {
        if (Date.now() > until) throw new Error(`no model request holds ${JSON.stringify(text)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    /** Resolves once the mock has answered a model request whose body holds `text`. */
    async answered(text, ms = 60_000) {
      const until = Date.now() + ms;
      const done = (r) => r.done_unix_us != null && JSON.stringify(r.body ?? "").includes(text);
      while (!(await control("requests")).some(done)) {
        if (Date.now() > until) throw new Error(`no model request holding ${JSON.stringify(text)} was answered`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

/**
 * A rig for `provider` (an id of the repo's plugin.json) run by `cli`: `env` (the CLI's complete
 * hermetic environment), `cwd` (its empty working directory), `pluginDir`, `dataDir`.
 */
export function realRig(mock, provider, cli, cliFile) {
  const root = mkdtempSync(join(tmpdir(), `acp-real-${provider}-`));
  const env = JSON.parse(
    execFileSync(mockBin, ["env", cli, "--root", root, "--port", String(mock.port)], { encoding: "utf8" }),
  );
  const manifest = JSON.parse(readFileSync(join(repo, "plugin.json"), "utf8"));
  const entry = manifest.providers.find((p) => p.id === provider);
  if (!entry) throw new Error(`${provider} is not in plugin.json`);
  manifest.providers = [{ ...entry, command: [cliFile, ...entry.command.slice(1)] }];
  const pluginDir = join(root, "plugin");
  mkdirSync(pluginDir);
  writeFileSync(join(pluginDir, "plugin.json"), JSON.stringify(manifest));
  return { provider, cli, env, cwd: join(root, "work"), pluginDir, dataDir: join(root, "data"), root };
}

/** `agent-bridge acp` for the rig, with only the hermetic environment. */
export function agentCommand(rig) {
  return [bin, "acp", "--provider", rig.provider, "--plugin-dir", rig.pluginDir, "--data-dir", rig.dataDir];
}

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Every process under `root` (pid and command line). */
export function descendants(root) {
  const out = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    for (let p = pid, depth = 0; depth < 32; depth++) {
      const parent = parentOf(p);
      if (parent === undefined || parent <= 1) break;
      if (parent === root) {
        let cmdline = "";
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
        } catch {
          // Gone meanwhile.
        }
        out.push({ pid, cmdline });
        break;
      }
      p = parent;
    }
  }
  return out;
}

export function alive(pid) {
  try {
    // A zombie still answers kill(0); its state says it is gone.
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return false;
  }
}

/** Resolves once none of `pids` is alive; rejects after `ms` with the ones left. */
export async function gone(procs, ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    const left = procs.filter((p) => alive(p.pid));
    if (left.length === 0) return;
    if (Date.now() > until) throw new Error(`left behind: ${JSON.stringify(left)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}


