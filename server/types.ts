// Local declarations of the parts of Paseo's plugin SDK the adapter uses.
//
// `@getpaseo/plugin` is supplied by Paseo at runtime and is not published on npm, so the adapter
// declares the shapes it relies on here (from `@getpaseo/plugin/server/provider` and
// `@getpaseo/plugin/server`) and imports nothing from the SDK. Inputs and events are kept loose on
// purpose: the bridge validates inputs and guarantees the events, the adapter only routes them.

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

/** A `ProviderInput` (`catalog`, `session.open`, `session.prompt`, ...). */
export interface ProviderInput {
  type: string;
  requestId?: string;
  sessionId?: string;
  [key: string]: unknown;
}

/** A `ProviderEvent` (`catalog`, `session.opened`, `timeline.item`, ...). */
export interface ProviderEvent {
  type: string;
  requestId?: string;
  sessionId?: string;
  [key: string]: unknown;
}

/** `request.launch`: the command, argument prefix and full environment chosen by the daemon. */
export interface ProviderLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface ProviderConnectRequest {
  versions: number[];
  capabilities: string[];
  launch?: ProviderLaunch;
}

export interface ProviderConnection {
  readonly version: number;
  readonly capabilities: string[];
  send(input: ProviderInput): Promise<void>;
  onEvent(listener: (event: ProviderEvent) => void): () => void;
  close(): Promise<void>;
}

export type ProviderCatalogOptions = {
  providerOptions?: Record<string, JsonValue>;
  settings?: Record<string, JsonValue>;
  force?: boolean;
} & ({ scope: "global" } | { scope: "workspace"; cwd: string });

export interface ProviderOperationContext {
  timeoutMs?: number;
}

export interface ProviderAvailability {
  status: "missing" | "unrunnable" | "incompatible" | "available";
  diagnostic?: string;
}

export interface ProviderRegistration {
  id: string;
  label: string;
  description?: string;
  /** Plugin-directory-relative path of an SVG icon. */
  icon?: string;
  connect(request: ProviderConnectRequest): Promise<ProviderConnection>;
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
  [key: string]: unknown;
}

/** One provider declared in the bridge's `plugin.json`. */
export interface BridgeProviderDeclaration {
  id: string;
  label: string;
  description?: string;
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
