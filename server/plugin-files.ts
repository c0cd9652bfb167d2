// Where the plugin lives on disk and what its `plugin.json` says.
//
// Paseo compiles `index.server.ts` into one bundle and evaluates it with `eval` inside its own
// plugin subprocess, which it forks without a working directory of ours. In that process
// `__dirname` is not defined and `process.cwd()` is the daemon's directory, so the folder is
// found by trying, in order: `AGENT_BRIDGE_PLUGIN_DIR`, `__dirname`, `process.cwd()`, and the
// installation Paseo recorded for this plugin in `$PASEO_HOME/config.json` (`plugins.<id>.path`).
// Which binary runs is `binary-location.ts`'s business.

import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import type { BridgePluginManifest, BridgeProviderDeclaration } from "./types";

export const PLUGIN_ID = "agent-bridge";
const BRIDGE_MANIFEST = "plugin.json";
const PASEO_MANIFEST = "paseo-plugin.json";

type Env = Record<string, string | undefined>;

function isPluginDir(dir: string | undefined): dir is string {
  return typeof dir === "string" && dir !== "" && existsSync(path.join(dir, BRIDGE_MANIFEST));
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** Folders Paseo's daemon config lists for this plugin (directory, git and npm installs alike). */
function paseoInstallDirs(env: Env): string[] {
  const home = env.PASEO_HOME || path.join(homedir(), ".paseo");
  let config: unknown;
  try {
    config = readJson(path.join(home, "config.json"));
  } catch {
    return [];
  }
  const plugins = (config as { plugins?: unknown } | null)?.plugins;
  if (!plugins || typeof plugins !== "object") return [];
  const ours: string[] = [];
  const others: string[] = [];
  for (const [installId, source] of Object.entries(plugins as Record<string, unknown>)) {
    const dir = (source as { path?: unknown } | null)?.path;
    if (typeof dir !== "string") continue;
    (installId === PLUGIN_ID ? ours : others).push(path.resolve(home, dir));
  }
  // An installation may use another id (`--id`); its manifest still says ours.
  const renamed = others.filter((dir) => {
    try {
      return (readJson(path.join(dir, PASEO_MANIFEST)) as { id?: unknown }).id === PLUGIN_ID;
    } catch {
      return false;
    }
  });
  return [...ours, ...renamed];
}

/** The plugin folder: the one holding the bridge's `plugin.json`. */
export function resolvePluginDir(env: Env = process.env): string {
  const override = env.AGENT_BRIDGE_PLUGIN_DIR;
  if (override) {
    const dir = path.resolve(override);
    if (!isPluginDir(dir)) {
      throw new Error(`AGENT_BRIDGE_PLUGIN_DIR=${override} has no ${BRIDGE_MANIFEST}`);
    }
    return dir;
  }
  const moduleDir = typeof __dirname === "string" ? __dirname : undefined;
  const candidates = [moduleDir, process.cwd(), ...paseoInstallDirs(env)];
  const found = candidates.find(isPluginDir);
  if (found) return path.resolve(found);
  throw new Error(
    `agent-bridge: cannot find the plugin folder (no ${BRIDGE_MANIFEST} next to the entry, in ` +
      `${process.cwd()}, or in Paseo's plugin config); set AGENT_BRIDGE_PLUGIN_DIR`,
  );
}

function isProviderDeclaration(value: unknown): value is BridgeProviderDeclaration {
  const entry = value as BridgeProviderDeclaration | null;
  return (
    !!entry &&
    typeof entry === "object" &&
    typeof entry.id === "string" &&
    typeof entry.label === "string"
  );
}

/** Reads and checks `<dir>/plugin.json` synchronously. */
export function readBridgeManifest(dir: string): BridgePluginManifest {
  const file = path.join(dir, BRIDGE_MANIFEST);
  let manifest: unknown;
  try {
    manifest = readJson(file);
  } catch (error) {
    throw new Error(`agent-bridge: cannot read ${file}: ${describeError(error)}`);
  }
  const providers = (manifest as { providers?: unknown } | null)?.providers;
  if (!Array.isArray(providers) || !providers.every(isProviderDeclaration)) {
    throw new Error(`agent-bridge: ${file} needs a "providers" array of {id, label}`);
  }
  return manifest as BridgePluginManifest;
}

/** Paseo gives server plugins no data folder of their own, so the bridge keeps state here. */
export function resolveDataDir(dir: string, env: Env = process.env): string {
  return env.AGENT_BRIDGE_DATA_DIR ? path.resolve(env.AGENT_BRIDGE_DATA_DIR) : path.join(dir, ".data");
}

/** The Paseo version running this plugin, when it can be told; `"unknown"` otherwise. */
export function paseoVersion(env: Env = process.env): string {
  if (env.PASEO_VERSION) return env.PASEO_VERSION;
  // The plugin subprocess is Paseo's own `plugin-process.js`, so its entry script lives inside
  // the `@getpaseo/server` package: walk up to the nearest package.json that names it.
  let dir = path.dirname(process.argv[1] ?? "");
  for (let depth = 0; depth < 6 && dir !== path.dirname(dir); depth += 1) {
    try {
      const pkg = readJson(path.join(dir, "package.json")) as { name?: unknown; version?: unknown };
      if (typeof pkg.name === "string" && pkg.name.startsWith("@getpaseo/")) {
        return typeof pkg.version === "string" ? pkg.version : "unknown";
      }
    } catch {
      // keep walking
    }
    dir = path.dirname(dir);
  }
  return "unknown";
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
