// Local declarations of the parts of Paseo's plugin SDK the adapter uses.
//
// `@getpaseo/plugin` is supplied by Paseo at runtime and is not published on npm, so the adapter
// declares the shapes it relies on here and imports nothing from the SDK. They follow the SDK's
// own shapes (`@getpaseo/plugin/server/provider`: `provider.ts@bd898554` and the newer plugin
// process's `status` / `command` / `launch`), so that a registration and a connection built here
// are assignable to the SDK's types; `tests/paseo-host/types` checks that with `tsc --strict`
// against declarations transcribed from the SDK. Inputs and events stay open (a `type` and the
// JSON around it): the bridge validates inputs and guarantees the events, the adapter routes them
// (and, inside Paseo, checks each event with Paseo's own schema: `event-guard.ts`).

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

/** `ProviderError`. */
export interface ProviderError {
  message: string;
  code?: string;
  diagnostic?: string;
}

/**
 * A `ProviderInput` (`catalog`, `session.open`, `session.prompt`, ...): every variant of the
 * SDK's union is one of these.
 */
export type ProviderInput = {
  readonly type: string;
  readonly requestId?: string;
  readonly sessionId?: string;
  readonly [key: string]: unknown;
};

/** A `ProviderEvent` (`catalog`, `session.opened`, `timeline.item`, ...). */
export type ProviderEvent = {
  type: string;
  requestId?: string;
  sessionId?: string;
  [key: string]: unknown;
};

/** `request.launch`: the command, argument prefix and full environment chosen by the daemon. */
export interface ProviderLaunch {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

export interface ProviderConnectRequest {
  versions: readonly number[];
  capabilities: readonly string[];
  launch?: ProviderLaunch;
}

export interface ProviderConnection {
  readonly version: number;
  readonly capabilities: readonly string[];
  send(input: ProviderInput): Promise<void>;
  onEvent(listener: (event: ProviderEvent) => void): () => void;
  close(): Promise<void>;
}

export type ProviderCatalogOptions = {
  providerOptions?: Readonly<Record<string, JsonValue>>;
  settings?: Readonly<Record<string, JsonValue>>;
} & ({ scope: "global"; force?: boolean } | { scope: "workspace"; cwd: string; force?: boolean });

export interface ProviderOperationContext {
  timeoutMs?: number;
}

export type AvailabilityStatus = "missing" | "unrunnable" | "incompatible" | "available";

export interface ProviderAvailability {
  status: AvailabilityStatus;
  diagnostic?: string;
}

/**
 * What the newer plugin process passes to `status()` (IPC `provider.status`). Its schema is not
 * in the public sources the adapter was written from, so it is read liberally: a `launch` like
 * a connect request's, a folder, a time limit, catalog options — each used when present.
 */
export interface ProviderStatusRequest {
  launch?: ProviderLaunch;
  cwd?: string;
  timeoutMs?: number;
  options?: ProviderCatalogOptions;
}

/** What `status()` answers: the provider's availability (see `ProviderStatusRequest`). */
export type ProviderStatus = ProviderAvailability;

export interface ProviderRegistration {
  id: string;
  label: string;
  description?: string;
  /** Plugin-directory-relative path of an SVG icon. */
  icon?: string;
  /** The CLI's default command (argv), from which a newer Paseo builds `request.launch`. */
  command?: readonly string[];
  connect(request: ProviderConnectRequest): Promise<ProviderConnection>;
  /** Called by the newer plugin process (`provider.status`). */
  status?(request: ProviderStatusRequest): Promise<ProviderStatus>;
  /** Called by hosts that probe availability without connecting. */
  checkAvailability?(
    options: ProviderCatalogOptions,
    context?: ProviderOperationContext,
  ): Promise<ProviderAvailability>;
  getCatalogCacheKey?(
    options: ProviderCatalogOptions,
    context?: ProviderOperationContext,
  ): Promise<string | undefined>;
}

/** The part of `PluginServerContext` the adapter uses; Paseo passes more. */
export interface PluginServerContext {
  registerProvider(provider: ProviderRegistration): void;
}

/** One provider declared in the bridge's `plugin.json`. */
export interface BridgeProviderDeclaration {
  id: string;
  label: string;
  description?: string;
  agent?: string;
  /** The CLI's argv prefix; empty or absent: no CLI of its own (the demo). */
  command?: string[];
  [key: string]: unknown;
}

/** The bridge's `plugin.json` (the fields the adapter reads). */
export interface BridgePluginManifest {
  id?: string;
  version?: string;
  main?: string;
  icon?: string;
  providers: BridgeProviderDeclaration[];
  [key: string]: unknown;
}
