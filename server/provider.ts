// The shared bridge (started on first need, replaced after it dies) and the provider
// registrations that use it.

import { BridgeProcess, type BridgeLaunch } from "./bridge-process";
import { BridgeConnection } from "./connection";
import { EventGuard, type HostSchema } from "./event-guard";
import { describeError } from "./plugin-files";
import type {
  BridgeProviderDeclaration,
  ProviderAvailability,
  ProviderCatalogOptions,
  ProviderConnectRequest,
  ProviderConnection,
  ProviderLaunch,
  ProviderOperationContext,
  ProviderRegistration,
  ProviderStatus,
  ProviderStatusRequest,
} from "./types";

export class BridgeManager {
  private current: BridgeProcess | null = null;
  private disposed = false;
  private disposing: Promise<void> | null = null;
  /** Checks events with the host's schema (inside Paseo); passes them through elsewhere. */
  readonly guard: EventGuard;

  constructor(
    private readonly launch: () => BridgeLaunch,
    hostSchema: HostSchema | null = null,
  ) {
    this.guard = new EventGuard(hostSchema);
  }

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

/** A launch as the bridge takes it (plain arrays and records), or undefined. */
function wireLaunch(launch: ProviderLaunch | undefined): ProviderLaunch | undefined {
  if (!launch || typeof launch.command !== "string") return undefined;
  return {
    command: launch.command,
    args: Array.isArray(launch.args) ? [...launch.args] : [],
    env: launch.env && typeof launch.env === "object" ? { ...launch.env } : {},
  };
}

/** The launch, folder and time limit of a `status()` request, read liberally. */
function statusProbe(request: ProviderStatusRequest | undefined): {
  options: ProviderCatalogOptions | Record<string, never>;
  launch: ProviderLaunch | undefined;
  timeoutMs: number | undefined;
} {
  const given = request && typeof request === "object" ? request : {};
  let options: ProviderCatalogOptions | Record<string, never> = {};
  if (given.options && typeof given.options === "object") options = given.options;
  else if (typeof given.cwd === "string") options = { scope: "workspace", cwd: given.cwd };
  const timeoutMs =
    typeof given.timeoutMs === "number" && given.timeoutMs > 0 ? given.timeoutMs : undefined;
  return { options, launch: wireLaunch(given.launch), timeoutMs };
}

export function createProviderRegistration(
  manager: BridgeManager,
  declaration: BridgeProviderDeclaration,
  icon: string | undefined,
): ProviderRegistration {
  const providerId = declaration.id;
  const label = declaration.label;

  /** `provider/availability` of this provider (for `launch`, else its default). */
  async function availability(
    options: ProviderCatalogOptions | Record<string, never>,
    launch: ProviderLaunch | undefined,
    timeoutMs: number | undefined,
  ): Promise<ProviderAvailability> {
    let bridge: BridgeProcess;
    try {
      bridge = await manager.acquire();
    } catch (error) {
      return { status: "unrunnable", diagnostic: describeError(error).slice(0, 4096) };
    }
    const params: Record<string, unknown> = { providerId, options: options ?? {} };
    if (timeoutMs !== undefined) params.timeoutMs = timeoutMs;
    if (launch) params.launch = launch;
    return (await bridge.request("provider/availability", params)) as ProviderAvailability;
  }

  const registration: ProviderRegistration = {
    id: providerId,
    label,

    async connect(request: ProviderConnectRequest): Promise<ProviderConnection> {
      const bridge = await manager.acquire();
      const launch = wireLaunch(request.launch);
      // A CLI that is missing or not logged in fails the connect with what `agent-bridge
      // doctor` says about it (a host that never asks for availability still learns why).
      const found = await availability({}, launch, undefined);
      if (found.status !== "available") {
        throw new Error(found.diagnostic ?? `${label} is ${found.status}`);
      }
      const forwarded: Record<string, unknown> = {
        versions: [...request.versions],
        capabilities: [...request.capabilities],
      };
      if (launch) forwarded.launch = launch;
      return bridge.connect(
        { providerId, request: forwarded },
        (result) =>
          new BridgeConnection(
            bridge,
            result.connectionId,
            result.version,
            result.capabilities,
            manager.guard,
          ),
      );
    },

    async status(request: ProviderStatusRequest): Promise<ProviderStatus> {
      const probe = statusProbe(request);
      return availability(probe.options, probe.launch, probe.timeoutMs);
    },

    async checkAvailability(
      options: ProviderCatalogOptions,
      context?: ProviderOperationContext,
    ): Promise<ProviderAvailability> {
      // The bridge requires `options` (docs/wire.md); a host that passes none means `{}`.
      return availability(options ?? {}, undefined, context?.timeoutMs);
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
  const command = declaration.command;
  if (Array.isArray(command) && command.length > 0 && command.every((p) => p.trim() !== "")) {
    registration.command = [...command];
  }
  return registration;
}
