// Paseo server entry of the agent-bridge plugin.
//
// Registers the providers declared in `plugin.json` (the demo agent only when
// `AGENT_BRIDGE_DEMO=1`, see server/provider-selection.ts) and routes them all through ONE
// `agent-bridge serve` child process, started on first need, speaking JSON-RPC lines over stdio
// (see docs/wire.md). Node built-ins only: Paseo compiles this file and evaluates the bundle in
// its plugin subprocess. Inside Paseo, every event is checked with Paseo's own event schema
// before it is emitted (server/event-guard.ts): one event Paseo refuses would close the
// connection and fail every session on it.

import { resolveBridgeBinary } from "./server/binary-location";
import { loadHostSchema } from "./server/event-guard";
import { BridgeManager, createProviderRegistration } from "./server/provider";
import {
  PLUGIN_ID,
  paseoVersion,
  readBridgeManifest,
  resolveDataDir,
  resolvePluginDir,
} from "./server/plugin-files";
import { registeredProviders } from "./server/provider-selection";
import { timeoutOverride } from "./server/request-timeouts";
import type { PluginServerContext } from "./server/types";

export default function contribute(server: PluginServerContext) {
  const pluginDir = resolvePluginDir();
  const manifest = readBridgeManifest(pluginDir);
  const manager = new BridgeManager(
    () => ({
      // Read at each start, so a rebuilt binary or a changed env applies to the next bridge.
      binary: resolveBridgeBinary(pluginDir, manifest),
      pluginDir,
      pluginId: manifest.id ?? PLUGIN_ID,
      dataDir: resolveDataDir(pluginDir),
      hostVersion: paseoVersion(),
      requestTimeoutMs: timeoutOverride(),
    }),
    loadHostSchema(),
  );
  for (const declaration of registeredProviders(manifest)) {
    server.registerProvider(createProviderRegistration(manager, declaration, manifest.icon));
  }
  return () => manager.dispose();
}
