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
 * SDK's union is one of these. No index signature: the SDK's variants include interfaces
 * (`ProviderCatalogConfiguration`), which have none; the adapter forwards inputs as JSON.
 */
export type ProviderInput = {
  readonly type: string;
  readonly requestId?: string;
  readonly sessionId?: string;
};

/** An event as it arrives from the bridge: JSON with a `type` (checked before it is emitted). */
export type BridgeEvent = {
  type: string;
  requestId?: string;
  sessionId?: string;
  [key: string]: unknown;
};

export interface ProviderPersistence {
  version: number;
  data: JsonValue;
}

// The payloads of events, as far as the adapter names them (it forwards them as the bridge sent
// them; inside Paseo each event is checked with Paseo's own schema first).
export interface ProviderModel {
  id: string;
  label: string;
  description?: string;
  isDefault?: boolean;
}
export interface ProviderMode {
  id: string;
  label: string;
  description?: string;
  isUnattended?: boolean;
}
export interface ProviderThinkingOption {
  id: string;
  label: string;
  isDefault?: boolean;
}
export interface ProviderCatalog {
  models: readonly ProviderModel[];
  modes: readonly ProviderMode[];
  thinkingOptions?: readonly ProviderThinkingOption[];
  defaultModel?: string;
  defaultMode?: string;
  defaultThinkingOption?: string;
}
export type ProviderSetting =
  | { type: "toggle"; id: string; label: string; description?: string; value: boolean }
  | {
      type: "select";
      id: string;
      label: string;
      description?: string;
      value: string | null;
      options: ReadonlyArray<{ label: string; value: string }>;
    };
export type ProviderControl =
  | { type: "toggle"; key: string; label: string; icon?: string; defaultValue: boolean }
  | {
      type: "select";
      key: string;
      label: string;
      icon?: string;
      defaultValue: string | null;
      choices: ReadonlyArray<{ value: string; label: string }>;
    };
/** `ProviderConfigState`: the legacy `settings` (Paseo 0.9), `controls` + `providerOptions` (newer). */
export interface ProviderConfigState {
  model?: string;
  mode?: string;
  thinkingOption?: string;
  models: readonly ProviderModel[];
  modes: readonly ProviderMode[];
  thinkingOptions: readonly ProviderThinkingOption[];
  settings?: readonly ProviderSetting[];
  controls?: readonly ProviderControl[];
  providerOptions?: Readonly<Record<string, JsonValue>>;
}
export interface ProviderTimelineItem {
  type: string;
  id: string;
  revertToken?: JsonValue;
}
export interface ProviderSessionSummary {
  persistence: ProviderPersistence;
  cwd: string;
  title?: string;
  description?: string;
  updatedAt?: string;
  firstPromptPreview?: string;
  lastPromptPreview?: string;
}
export interface ProviderPermissionRequest {
  id: string;
  name: string;
  kind: "tool" | "plan" | "question" | "mode" | "other";
  title?: string;
  description?: string;
}
export interface ProviderCommand {
  name: string;
  description: string;
  argumentHint?: string;
}
export interface ProviderUsage {
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  totalCostUsd?: number;
  contextWindowMaxTokens?: number;
  contextWindowUsedTokens?: number;
}

export interface ProviderNotice {
  id: string;
  severity: "info" | "warning" | "error";
  title: string;
  description?: string;
  dismissed?: boolean;
}

/** `ProviderEvent`, the SDK's union (`provider.ts@bd898554` and the newest additions). */
export type ProviderEvent =
  | { type: "catalog"; requestId: string; catalog: ProviderCatalog }
  | { type: "sessions"; requestId: string; sessions: ProviderSessionSummary[] }
  | { type: "request.completed"; requestId: string }
  | { type: "request.failed"; requestId: string; error: ProviderError }
  | {
      type: "session.opened";
      requestId?: string;
      sessionId: string;
      parentSessionId?: string;
      capabilities: readonly string[];
      restoration: "core" | "parent";
      persistence?: ProviderPersistence;
      title?: string;
      description?: string;
      cwd: string;
    }
  | { type: "session.ready"; requestId?: string; sessionId: string }
  | { type: "session.closed"; sessionId: string; error?: ProviderError }
  | { type: "session.runtime_failed"; sessionId: string; error: ProviderError }
  | { type: "session.persistence"; sessionId: string; persistence: ProviderPersistence }
  | {
      type: "session.prompt_result";
      sessionId: string;
      clientMessageId: string;
      result:
        | { type: "turn"; turnId: string }
        | { type: "steer"; turnId: string }
        | { type: "completed" }
        | { type: "failed"; error: ProviderError };
    }
  | {
      type: "session.turn";
      sessionId: string;
      turnId: string;
      state: "started" | "completed" | "failed" | "canceled";
      error?: ProviderError;
    }
  | { type: "session.usage"; sessionId: string; turnId?: string; usage: ProviderUsage }
  | { type: "session.config"; sessionId: string; config: ProviderConfigState }
  | { type: "session.commands"; sessionId: string; commands: ProviderCommand[] }
  | { type: "session.permission"; sessionId: string; request: ProviderPermissionRequest }
  | { type: "session.permission_resolved"; sessionId: string; permissionId: string }
  | { type: "session.notice"; sessionId: string; notice: ProviderNotice }
  | { type: "timeline.item"; sessionId: string; item: ProviderTimelineItem; timestamp?: string }
  | { type: "session.can_stop_runtime"; requestId: string; sessionId: string; canStop: boolean };

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
  /** The launch the daemon will connect with (newer hosts' `provider.catalog_key`). */
  launch?: ProviderLaunch;
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
 * What the newer plugin process passes to `status()` (IPC `provider.status`): `{ launch? }`,
 * strict (`plugin-process-protocol.ts@743b27cd`). Read liberally all the same (older stored
 * hosts were not seen): a folder, a time limit or catalog options are used when present.
 */
export interface ProviderStatusRequest {
  launch?: ProviderLaunch;
  cwd?: string;
  timeoutMs?: number;
  options?: ProviderCatalogOptions;
}

/**
 * `readSessionHistory`'s request (IPC `provider.history`, `plugin-process-protocol.ts@743b27cd`):
 * the stored handle, the session's folder, its environment and the launch to read with.
 */
export interface ProviderHistoryReadRequest {
  persistence: ProviderPersistence;
  cwd: string;
  env?: Readonly<Record<string, string>>;
  launch?: ProviderLaunch;
}

/**
 * What `readSessionHistory` answers: complete timeline snapshots in provider order. The SDK's
 * `ProviderHistoryReadResultSchema` is not in the public sources; this is the shape of the
 * provider guide's example (`public-docs/plugins/providers.md@743b27cd`: `items`, `coverage:
 * { kind: "complete" }`, optional `children`, which the bridge does not return).
 */
export interface ProviderHistoryReadResult {
  items: ProviderTimelineItem[];
  coverage: { kind: "complete" };
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
  /** Reads an archived or closed session's history without opening it (IPC `provider.history`). */
  readSessionHistory?(request: ProviderHistoryReadRequest): Promise<ProviderHistoryReadResult>;
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
