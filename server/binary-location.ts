// Which `agent-bridge` binary the adapter runs.
//
// In order: `AGENT_BRIDGE_BIN`; the binary of this machine's platform package
// (`@agent-bridge/<platform>-<arch>`, an optional dependency of the npm package, found the way
// Node resolves a package from the plugin folder); `plugin.json`'s `main` (a local
// `target/release` build). When none exists the error names every place that was looked at.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { BridgePluginManifest } from "./types";

type Env = Record<string, string | undefined>;

export const PLATFORM_PACKAGE_SCOPE = "@agent-bridge";
const DEFAULT_MAIN = "target/release/agent-bridge";

export interface Host {
  platform: string;
  arch: string;
}

const thisHost: Host = { platform: process.platform, arch: process.arch };

/** The platform package for `host`, e.g. `@agent-bridge/linux-x64`. */
export function platformPackageName(host: Host = thisHost): string {
  return `${PLATFORM_PACKAGE_SCOPE}/${host.platform}-${host.arch}`;
}

/** Where the binary sits inside a platform package. */
export function binaryInPackage(host: Host = thisHost): string {
  return path.join("bin", host.platform === "win32" ? "agent-bridge.exe" : "agent-bridge");
}

/** The platform package's binary, or why it is not there (with the folders searched). */
function fromPlatformPackage(dir: string, host: Host): { binary?: string; looked: string } {
  const name = platformPackageName(host);
  const resolver = createRequire(path.join(dir, "package.json"));
  let manifest: string;
  try {
    manifest = resolver.resolve(`${name}/package.json`);
  } catch {
    const searched = (resolver.resolve.paths(name) ?? []).map((p) => path.join(p, name));
    return { looked: `${name}: not installed (searched ${searched.join(", ")})` };
  }
  const binary = path.join(path.dirname(manifest), binaryInPackage(host));
  if (existsSync(binary)) return { binary, looked: `${name}: ${binary}` };
  return { looked: `${name}: installed at ${path.dirname(manifest)} but ${binary} is missing` };
}

/**
 * The binary to run for the plugin in `dir`. Throws, naming each place looked at, when neither
 * the platform package nor `plugin.json`'s `main` has one.
 */
export function resolveBridgeBinary(
  dir: string,
  manifest: BridgePluginManifest,
  env: Env = process.env,
  host: Host = thisHost,
): string {
  if (env.AGENT_BRIDGE_BIN) return path.resolve(dir, env.AGENT_BRIDGE_BIN);
  const packaged = fromPlatformPackage(dir, host);
  if (packaged.binary) return packaged.binary;
  const local = path.resolve(dir, manifest.main ?? DEFAULT_MAIN);
  if (existsSync(local)) return local;
  throw new Error(
    `agent-bridge: no agent-bridge binary for ${host.platform}-${host.arch}. Looked at: ` +
      `AGENT_BRIDGE_BIN (not set); the platform package ${packaged.looked}; ` +
      `plugin.json "main": ${local} (missing). Reinstall the npm package on a supported ` +
      `platform, build one with \`sh scripts/prepare.sh\` in ${dir}, or set AGENT_BRIDGE_BIN.`,
  );
}
