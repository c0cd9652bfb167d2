// Which of `plugin.json`'s providers the adapter registers with Paseo.
//
// The built-in demo agent (`"agent": "demo"`) is for trying the bridge and for tests, not for
// every user's agent picker: it is registered only when `AGENT_BRIDGE_DEMO=1`. The binary serves
// it either way (`agent-bridge try` and the conformance tests use it directly).

import type { BridgePluginManifest, BridgeProviderDeclaration } from "./types";

type Env = Record<string, string | undefined>;

export const DEMO_ENV = "AGENT_BRIDGE_DEMO";

export function demoEnabled(env: Env = process.env): boolean {
  return env[DEMO_ENV] === "1";
}

export function registeredProviders(
  manifest: BridgePluginManifest,
  env: Env = process.env,
): BridgeProviderDeclaration[] {
  const demo = demoEnabled(env);
  return manifest.providers.filter((declaration) => demo || declaration.agent !== "demo");
}
