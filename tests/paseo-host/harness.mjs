// Helpers of the emulator's tests: a host running the repository's plugin, event waits, the
// processes under a plugin process.

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PaseoHost } from "./host/runtime.mjs";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../..");
export const bridgeBinary = path.resolve(repoRoot, process.env.AGENT_BRIDGE_BIN || "target/debug/agent-bridge");
export const GENERATIONS = ["0.9", "newest"];

export function requireBinary() {
  assert.ok(existsSync(bridgeBinary), `agent-bridge binary not found at ${bridgeBinary}: run \`cargo build -p agent-bridge\``);
}

export function tempDir(prefix) {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** An executable that runs a node script (for AGENT_BRIDGE_BIN). */
export function nodeWrapper(script) {
  const dir = tempDir("paseo-host-bin-");
  const file = path.join(dir, "bridge");
  writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * A host of `generation` running the repository's plugin with `env` as the plugin process's
 * environment (plus the adapter's own variables). Stopped when the test ends.
 */
export async function startHost(t, { generation, env = process.env, bin = bridgeBinary, cwd, withSdk = true, extra = {} }) {
  const host = new PaseoHost({
    generation,
    pluginDir: repoRoot,
    cwd: cwd ?? tempDir("paseo-daemon-"),
    withSdk,
    env: {
      ...env,
      AGENT_BRIDGE_PLUGIN_DIR: repoRoot,
      AGENT_BRIDGE_BIN: bin,
      AGENT_BRIDGE_DATA_DIR: tempDir("paseo-host-data-"),
      AGENT_BRIDGE_DEMO: "1",
      ...extra,
    },
  });
  await host.start();
  t.after(async () => {
    if (!host.exit) await host.stop();
  });
  return host;
}

/**
 * Waits for the first event of `connection` matching `predicate` (seen or to come; of those seen,
 * only from index `since` on).
 */
export function waitEvent(connection, predicate, label, timeoutMs = 60_000, since = 0) {
  return new Promise((resolve, reject) => {
    const found = connection.events.slice(since).find(predicate);
    if (found) return resolve(found);
    const timer = setTimeout(() => {
      off();
      const tail = connection.events.slice(-15).map((e) => JSON.stringify(e).slice(0, 400)).join("\n");
      reject(new Error(`timed out (${timeoutMs} ms) waiting for ${label}; last events:\n${tail}\nhost: ${JSON.stringify(connection.stats)}`));
    }, timeoutMs);
    const off = connection.onEvent((event) => {
      if (!predicate(event)) return;
      clearTimeout(timer);
      off();
      resolve(event);
    });
  });
}

/** Pids of every live descendant of `pid` (Linux `/proc`), with their command lines. */
export function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] === "Z") continue;
      const ppid = Number(fields[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  const found = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      let cmdline = "";
      try {
        cmdline = readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0").join(" ").trim();
      } catch {
        continue;
      }
      found.push({ pid: child, cmdline });
      queue.push(child);
    }
  }
  return found;
}

export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
