// The shared bridge (started on first need, replaced after it dies) and the provider
// registrations that use it.

import { BridgeProcess, type BridgeLaunch } from "./bridge-process";
import { BridgeConnection } from "./connection";
import { describeError } from "./plugin-files";
import type {
  BridgeProviderDeclaration,
  ProviderAvailability,
  ProviderCatalogOptions,
  ProviderConnectRequest,
  ProviderConnection,
  ProviderOperationContext,
  ProviderRegistration,
} from "./types";

export class BridgeManager {
  private current: BridgeProcess | null = null;
  private disposed = false;
  private disposing: Promise<void> | null = null;

  constructor(private readonly launch: () => BridgeLaunch) {}

  /** The running bridge, started (and initialized) on first need. */
  async acquire(): Promise<BridgeProcess> {
    if (this.disposed) throw new Error("agent-bridge plugin is stopping");
    let bridge = this.current;
    if (!bridge || !bridge.alive) {
      bridge = new BridgeProcess(this.launch(), (dead) => {
        if (this.current === dead) this.current = null;
      });
      this.current = bridge;
    }
    try {
      await bridge.ready;
    } catch (error) {
      if (this.current === bridge) this.current = null;
      void bridge.stop();
      throw error instanceof Error ? error : new Error(describeError(error));
    }
    return bridge;
  }

  dispose(): Promise<void> {
    this.disposed = true;
    this.disposing ??= (async () => {
      const bridge = this.current;
      this.current = null;
      if (bridge) await bridge.stop();
    })();
    return this.disposing;
  }
}

export function createProviderRegistration(
  manager: BridgeManager,
  declaration: BridgeProviderDeclaration,
  icon: string | undefined,
): ProviderRegistration {
  const providerId = declaration.id;
  const registration: ProviderRegistration = {
    id: providerId,
    label: declaration.label,

    async connect(request: ProviderConnectRequest): Promise<ProviderConnection> {
      const bridge = await manager.acquire();
      const forwarded: ProviderConnectRequest = {
        versions: request.versions,
        capabilities: request.capabilities,
      };
      if (request.launch) forwarded.launch = request.launch;
      return bridge.connect(
        { providerId, request: forwarded },
        (result) =>
          new BridgeConnection(bridge, result.connectionId, result.version, result.capabilities),
      );
    },

    async checkAvailability(
      options: ProviderCatalogOptions,
      context?: ProviderOperationContext,
    ): Promise<ProviderAvailability> {
      let bridge: BridgeProcess;
      try {
        bridge = await manager.acquire();
      } catch (error) {
        return { status: "unrunnable", diagnostic: describeError(error).slice(0, 4096) };
      }
      // The bridge requires `options` (bridge-wire.md); a host that passes none means `{}`.
      return (await bridge.request("provider/availability", {
        providerId,
        options: options ?? {},
        timeoutMs: context?.timeoutMs,
      })) as ProviderAvailability;
    },

    async getCatalogCacheKey(options: ProviderCatalogOptions): Promise<string | undefined> {
      const bridge = await manager.acquire();
      const result = (await bridge.request("provider/catalogCacheKey", {
        providerId,
        options: options ?? {},
      })) as { key?: string | null } | null;
      return result?.key ?? undefined;
    },
  };
  if (declaration.description !== undefined) registration.description = declaration.description;
  if (icon !== undefined) registration.icon = icon;
  return registration;
}
