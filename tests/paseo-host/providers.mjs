// The providers the emulator drives and what differs between them, plus the real-CLI rig: the
// pinned CLIs (tests/clis), the mock model server (`mock-llm`) and each CLI's hermetic
// environment (`mock-llm env CLI --root DIR --port N`, the recipe of mock_llm::hermetic, as the
// Rust conformance rig uses it). The per-agent knobs are the conformance suite's
// (tests/conformance/tests/agnostic_*.rs): which mode asks before a command, which runs
// unattended, and the setup a few agents need.

import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { repoRoot } from "./harness.mjs";

/** provider id -> its CLI, the mode that asks before a command and the one that does not. */
export const CASES = {
  demo: { cli: null, askMode: "ask", otherMode: "auto" },
  "claude-bridge": { cli: "claude", askMode: "default", otherMode: "bypassPermissions" },
  "codex-bridge": { cli: "codex", askMode: "ask", otherMode: "full-access" },
  "gemini-bridge": {
    cli: "gemini",
    askMode: null,
    otherMode: "yolo",
    // Gemini refuses its privileged modes (yolo) in an untrusted folder.
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true" },
  },
  "qwen-bridge": { cli: "qwen", askMode: null, otherMode: "yolo" },
  "opencode-bridge": { cli: "opencode", askMode: null, otherMode: "yolo", prepare: askingOpencode },
  "claude-acp-bridge": { cli: "claude-agent-acp", askMode: null, otherMode: "bypassPermissions" },
  "codex-acp-bridge": {
    cli: "codex-acp",
    askMode: "read-only",
    otherMode: "full-access",
    // In read-only mode codex-acp asks only when the model wants a command outside its
    // sandbox: the mock's next tool call is an `exec_command` asking for escalation.
    beforeToolTurn: (mock) =>
      mock.script({
        steps: [
          {
            tool_call: {
              name: "exec_command",
              arguments: {
                cmd: "touch allowed.txt",
                sandbox_permissions: "require_escalated",
                justification: "the test needs a file written",
              },
            },
          },
        ],
      }),
  },
  // Copilot's and Cline's unattended modes are config options offered as modes.
  "copilot-bridge": { cli: "copilot", askMode: null, otherMode: "allow_all" },
  "kilo-bridge": { cli: "kilo", askMode: null, otherMode: "yolo", prepare: yoloKilo },
  "cline-bridge": { cli: "cline", askMode: null, otherMode: "auto_approve" },
  "kimi-bridge": { cli: "kimi", askMode: "default", otherMode: "auto" },
  // Droid sends a reply's text in one chunk once the model is done: its interrupt lands while
  // the model request is under way.
  "droid-bridge": { cli: "droid", askMode: "normal", otherMode: "auto-high", textAtEnd: true },
  // Grok and Pi never ask: Grok's one mode is its process flag --always-approve, Pi has no
  // permission layer (its modes are thinking levels).
  "grok-bridge": { cli: "grok", askMode: null, otherMode: "always-approve", neverAsks: true },
  "pi-bridge": { cli: "pi-acp", askMode: null, otherMode: "off", neverAsks: true },
  // Mistral Vibe's ask mode runs read-only commands (echo) unasked, but asks for touch.
  "vibe-bridge": { cli: "vibe-acp", askMode: "ask", otherMode: "auto-approve" },
  // Deep Agents Code's `yolo` is the process flag --yolo: the change to it moves the session to
  // a process started with it (its history reloaded there).
  "deepagents-bridge": { cli: "dcode", askMode: "ask", otherMode: "yolo" },
  // OpenHands never streams over ACP (its reply comes whole when the model request returns): its
  // interrupt lands while the request is under way. always-ask asks even for echo.
  "openhands-bridge": { cli: "openhands", askMode: "always-ask", otherMode: "always-approve", textAtEnd: true },
};

/** OpenCode asks before shell commands and edits; its `yolo` agent (a mode) does not. */
function askingOpencode(root) {
  const file = path.join(root, "home", ".config", "opencode", "opencode.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.permission = { bash: "ask", edit: "ask" };
  config.agent = {
    yolo: { mode: "primary", description: "Runs every tool without asking", permission: { bash: "allow", edit: "allow" } },
  };
  writeFileSync(file, JSON.stringify(config));
}

/** Kilo (an OpenCode fork) asks before shell commands (the recipe); its `yolo` agent does not. */
function yoloKilo(root) {
  const file = path.join(root, "home", ".config", "kilo", "kilo.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.agent = {
    yolo: { mode: "primary", description: "code with every tool allowed", permission: { bash: "allow", edit: "allow" } },
  };
  writeFileSync(file, JSON.stringify(config));
}

/** Where the pinned CLIs' executables are (as mock_llm::cli_path looks). */
function binDirs() {
  const dirs = [];
  if (process.env.AGENT_BRIDGE_CLI_BIN) dirs.push(process.env.AGENT_BRIDGE_CLI_BIN);
  if (process.env.AGENT_BRIDGE_CLI_CACHE) dirs.push(path.join(process.env.AGENT_BRIDGE_CLI_CACHE, "node_modules", ".bin"));
  dirs.push(path.join(repoRoot, ".cache", "clis", "node_modules", ".bin"));
  // The CLIs that need node >= 22.19 live in <cache>/node22, the PyPI agents' commands in
  // <cache>/python/bin (tests/clis/install.sh).
  return [
    ...dirs,
    ...dirs.map((d) => path.join(d, "..", "..", "node22", "node_modules", ".bin")),
    ...dirs.map((d) => path.join(d, "..", "..", "python", "bin")),
  ];
}

export function cliPath(name) {
  for (const dir of binDirs()) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/** A missing CLI fails under CI / AGENT_BRIDGE_REQUIRE_CLIS=1, else skips loudly. */
export function cliRequired() {
  return process.env.CI === "true" || process.env.CI === "1" || process.env.AGENT_BRIDGE_REQUIRE_CLIS === "1";
}

/**
 * The version in the package.json of the npm package `bin` belongs to; for a command of a Python
 * venv (tests/clis/python), the version of the dist-info whose entry points name it.
 */
export function packageVersion(bin) {
  let dir = path.dirname(realpathSync(bin));
  if (existsSync(path.join(dir, "..", "pyvenv.cfg"))) return venvVersion(path.join(dir, ".."), path.basename(bin));
  while (dir !== path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")).version ?? "unknown";
    dir = path.dirname(dir);
  }
  return "unknown";
}

/** `<name>-<version>.dist-info` in the venv whose entry_points.txt declares the command `command`. */
function venvVersion(venv, command) {
  for (const lib of readdirSync(path.join(venv, "lib"))) {
    const site = path.join(venv, "lib", lib, "site-packages");
    if (!existsSync(site)) continue;
    for (const info of readdirSync(site).filter((d) => d.endsWith(".dist-info"))) {
      const entries = path.join(site, info, "entry_points.txt");
      if (existsSync(entries) && readFileSync(entries, "utf8").split("\n").some((l) => l.split("=")[0].trim() === command)) {
        return info.slice(0, -".dist-info".length).split("-").pop();
      }
    }
  }
  return "unknown";
}

/**
 * Appends `SKIPPED <cli> <test> <why>` to AGENT_BRIDGE_CLI_REPORT for a real-CLI test that did not
 * run (test-all.sh counts and lists them).
 */
export function reportSkipped(cli, test, why) {
  const file = process.env.AGENT_BRIDGE_CLI_REPORT;
  if (!file) return;
  writeFileSync(file, `SKIPPED ${cli} ${test.replace(/\s+/g, "-")} ${why.replace(/\s+/g, "-")}\n`, { flag: "a" });
}

/** Appends `<cli> <version> <scenario> ok` to AGENT_BRIDGE_CLI_REPORT (test-all.sh lists it). */
export function reportOk(cli, bin, scenario) {
  const file = process.env.AGENT_BRIDGE_CLI_REPORT;
  if (!file) return;
  writeFileSync(file, `${cli} ${packageVersion(bin)} ${scenario} ok\n`, { flag: "a" });
}

export function mockBinary() {
  return path.resolve(repoRoot, process.env.MOCK_LLM_BIN || "target/debug/mock-llm");
}

/** Starts the mock model server; resolves with its port and a stop function. */
export function startMock() {
  const child = spawn(mockBinary(), [], {
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, RUST_LOG: "mock_llm=warn" },
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`mock-llm exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^MOCK_LLM_URL=http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (!match) return;
      const port = Number(match[1]);
      resolve({
        port,
        /** Pushes a script (`POST /_mock/script`): steps consumed by the next tool-declaring requests. */
        async script(script) {
          const response = await fetch(`http://127.0.0.1:${port}/_mock/script`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(script),
          });
          if (!response.ok) throw new Error(`mock script: HTTP ${response.status} ${await response.text()}`);
        },
        /** The requests the mock logged (`GET /_mock/requests`). */
        async requests() {
          const response = await fetch(`http://127.0.0.1:${port}/_mock/requests`);
          return response.json();
        },
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

/** The hermetic environment of `cli` under `root` for a mock on `port`. */
export function hermeticEnv(cli, root, port) {
  const result = spawnSync(mockBinary(), ["env", cli, "--root", root, "--port", String(port)], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`mock-llm env ${cli}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
