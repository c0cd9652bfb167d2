// The shared bridge (started on first need, replaced after it dies) and the provider
// registrations that use it.

import { BridgeProcess, type BridgeLaunch } from "./bridge-process";
import { BridgeConnection } from "./connection";
import { EventGuard, type HostSchema } from "./event-guard";
import { describeError } from "./plugin-files";
import { CONNECT_BUDGET_MS, CONNECT_RESERVE_MS, CONNECT_PROBE_MAX_MS } from "./request-timeouts";
import type {
  BridgeProviderDeclaration,
  ProviderAvailability,
  ProviderCatalogOptions,
  ProviderConnectRequest,
  ProviderConnection,
  ProviderHistoryReadRequest,
  ProviderHistoryReadResult,
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

/** Resolves to `value` after `ms`, unless `promise` settles first (its failure included). */
function settleWithin<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref?.();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
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

  /**
   * The availability of `launch` if the bridge answers within `ms`; null when it does not (the
   * probe goes on in the bridge until its own limit, its answer is dropped). `ms` stays under
   * the bridge's own 10 s limit, so a probe that ran out of time never reads as unavailable.
   */
  async function availabilityWithin(
    ms: number,
    launch: ProviderLaunch | undefined,
  ): Promise<ProviderAvailability | null> {
    const found = await settleWithin(availability({}, launch, undefined), ms, null);
    if (found === null) {
      console.error(
        `[agent-bridge] ${label}: availability not known within ${ms} ms; connecting without it`,
      );
    }
    return found;
  }

  const registration: ProviderRegistration = {
    id: providerId,
    label,

    async connect(request: ProviderConnectRequest): Promise<ProviderConnection> {
      // Paseo gives the whole connect (and the plugin process's own work) 30 s
      // (`REQUEST_TIMEOUT_MS`, runtime.ts): every step below fits in CONNECT_BUDGET_MS.
      const deadline = Date.now() + CONNECT_BUDGET_MS;
      const bridge = await manager.acquire();
      const launch = wireLaunch(request.launch);
      // A CLI that is missing or not logged in fails the connect with what `agent-bridge
      // doctor` says about it (a host that never asks for availability still learns why). The
      // probe gets what the budget leaves; one that does not answer in time decides nothing.
      const window = Math.min(CONNECT_PROBE_MAX_MS, deadline - Date.now() - CONNECT_RESERVE_MS);
      const found = window > 0 ? await availabilityWithin(window, launch) : null;
      if (found && found.status !== "available") {
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
        deadline,
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
      // A newer Paseo names the launch it will connect with: the key is that launch's.
      const forwarded: Record<string, unknown> = { ...(options ?? {}) };
      const launch = wireLaunch(options?.launch);
      if (launch) forwarded.launch = launch;
      else delete forwarded.launch;
      const result = (await bridge.request("provider/catalogCacheKey", {
        providerId,
        options: forwarded,
      })) as { key?: string | null } | null;
      return result?.key ?? undefined;
    },

    async readSessionHistory(
      request: ProviderHistoryReadRequest,
    ): Promise<ProviderHistoryReadResult> {
      const bridge = await manager.acquire();
      const params: Record<string, unknown> = {
        providerId,
        persistence: request.persistence,
        cwd: request.cwd,
      };
      if (request.env && typeof request.env === "object") params.env = { ...request.env };
      const launch = wireLaunch(request.launch);
      if (launch) params.launch = launch;
      const result = (await bridge.request("provider/readSessionHistory", params)) as {
        items?: unknown;
      } | null;
      const items = Array.isArray(result?.items) ? result.items : [];
      // Inside Paseo a row its schema refuses is left out (logged), not the whole read failed.
      return { items: manager.guard.items(items), coverage: { kind: "complete" } };
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
