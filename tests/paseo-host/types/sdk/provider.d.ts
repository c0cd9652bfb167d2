// Declarations of `@getpaseo/plugin/server/provider`, transcribed by hand from the facts of
// getpaseo/paseo `packages/plugin/src/server/provider.ts` at commit bd898554 (the 0.9.x SDK),
// with the newer host's additions: `ProviderConnectRequest.launch`, `ProviderRegistration.status`
// and `.command` (the newer `plugin-process.ts`), `controls` / `providerOptions` in the config
// state and `session.can_stop_runtime` (the seed provider guide). Where the newer shapes are not
// in the public sources (`ProviderStatus`, the history read's result) they are the emulator's
// assumption (tests/paseo-host/host/schemas-newest.mjs). The status and history requests are
// `plugin-process-protocol.ts@743b27cd`'s strict IPC schemas; `readSessionHistory` and the
// catalog options' `launch` are that file's and `plugin-process.ts@743b27cd`'s. Only what the adapter's types meet is
// spelled out in full; the rest of the unions is kept faithful in shape.

declare module "@getpaseo/plugin/server/provider" {
  import type { ZodType } from "zod";

  export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

  export const PROVIDER_PROTOCOL_VERSION: 1;
  export const PROVIDER_CAPABILITIES: readonly [
    "prompt.message", "prompt.command", "prompt.image", "prompt.output_schema", "prompt.steer",
    "session.archive", "session.configure", "session.list", "session.persistence",
    "session.revert.both", "session.revert.conversation", "session.revert.files",
    "session.subsession", "session.unarchive", "session.can_stop_runtime",
    "permission", "permission.tool_policy", "timeline.plugin",
  ];
  export type ProviderCapability = (typeof PROVIDER_CAPABILITIES)[number];

  interface ProviderCatalogConfiguration {
    providerOptions?: Readonly<Record<string, JsonValue>>;
    settings?: Readonly<Record<string, JsonValue>>;
  }
  export type ProviderCatalogOptions = ProviderCatalogConfiguration &
    (
      | { scope: "global"; force?: boolean; launch?: ProviderLaunch }
      | { scope: "workspace"; cwd: string; force?: boolean; launch?: ProviderLaunch }
    );

  export interface ProviderAvailability {
    status: "missing" | "unrunnable" | "incompatible" | "available";
    diagnostic?: string;
  }
  export interface ProviderOperationContext {
    /** Maximum time the host permits this operation to run. */
    timeoutMs?: number;
  }
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
  /** IPC `provider.status`'s `request`: `{ launch? }`, strict. */
  export interface ProviderStatusRequest {
    launch?: ProviderLaunch;
  }
  /** IPC `provider.history`'s `request`, strict. */
  export interface ProviderHistoryReadRequest {
    persistence: ProviderPersistence;
    cwd: string;
    env?: Record<string, string>;
    launch?: ProviderLaunch;
  }
  /** Assumed (the provider guide's example; the schema is not public). */
  export interface ProviderHistoryReadResult {
    items: ProviderTimelineItem[];
    coverage: { kind: "complete" };
  }
  /** Assumed (not in the public sources): the availability shape. */
  export type ProviderStatus = ProviderAvailability;

  export interface ProviderRegistration {
    getCatalogCacheKey?(options: ProviderCatalogOptions, context?: ProviderOperationContext): Promise<string | undefined>;
    checkAvailability?(options: ProviderCatalogOptions, context?: ProviderOperationContext): Promise<ProviderAvailability>;
    status?(request: ProviderStatusRequest): Promise<ProviderStatus>;
    readSessionHistory?(request: ProviderHistoryReadRequest): Promise<ProviderHistoryReadResult>;
    command?: readonly string[];
    providerOptionsSchema?: ZodType;
    id: string;
    label: string;
    description?: string;
    icon?: string;
    connect(request: ProviderConnectRequest): Promise<ProviderConnection>;
  }

  export interface ProviderConnection {
    readonly version: number;
    readonly capabilities: readonly string[];
    send(input: ProviderInput): Promise<void>;
    onEvent(listener: (event: ProviderEvent) => void): () => void;
    close(): Promise<void>;
  }

  export interface ProviderPersistence {
    version: number;
    data: JsonValue;
  }
  export type ProviderMcpServerConfig =
    | { type: "stdio"; command: string; args?: string[]; env?: Record<string, string>; alwaysLoad?: boolean }
    | { type: "http" | "sse"; url: string; headers?: Record<string, string>; alwaysLoad?: boolean };
  export interface ProviderToolPolicy {
    preapproved: Array<{ kind: "mcp"; server: string; tool: string }>;
  }
  export interface ProviderSessionConfig {
    cwd: string;
    env: Readonly<Record<string, string>>;
    systemPrompt?: string;
    mcpServers: Readonly<Record<string, ProviderMcpServerConfig>>;
    toolPolicy?: ProviderToolPolicy;
    deniedTools?: readonly string[];
    model?: string;
    mode?: string;
    thinkingOption?: string;
    settings: Readonly<Record<string, JsonValue>>;
    providerOptions?: Readonly<Record<string, JsonValue>>;
    title?: string;
    persist: boolean;
  }
  export interface ProviderConfigChanges {
    model?: string | null;
    mode?: string | null;
    thinkingOption?: string | null;
    providerOptions?: Readonly<Record<string, JsonValue>>;
    settings?: Readonly<Record<string, JsonValue>>;
  }
  export type ProviderContent =
    | { type: "text"; text: string }
    | { type: "image"; data: string; mimeType: string }
    | { type: "text"; mimeType: "text/plain"; title?: string | null; text: string }
    | { type: "uploaded_file"; id: string; fileName: string; mimeType: string; size: number; path: string };
  export interface ProviderPrompt {
    clientMessageId: string;
    delivery: "auto" | "steer";
    input: { type: "message"; content: ProviderContent[] } | { type: "command"; name: string; arguments: string };
    outputSchema?: JsonValue;
    clearPendingPermissions?: boolean;
  }
  export type ProviderPermissionResponse =
    | { behavior: "allow"; selectedActionId?: string; updatedInput?: Record<string, JsonValue>; updatedPermissions?: Array<Record<string, JsonValue>> }
    | { behavior: "deny"; selectedActionId?: string; message?: string; interrupt?: boolean };

  export type ProviderInput =
    | ({ type: "catalog"; requestId: string } & ProviderCatalogConfiguration & { cwd?: string })
    | ({ type: "sessions"; requestId: string; query?: string; cwd?: string; limit?: number } & ProviderCatalogConfiguration)
    | { type: "session.open"; requestId: string; sessionId: string; config: ProviderSessionConfig; persistence?: ProviderPersistence; history: "replay" | "skip" }
    | { type: "session.prompt"; sessionId: string; prompt: ProviderPrompt }
    | { type: "session.interrupt"; requestId: string; sessionId: string }
    | { type: "session.permission"; sessionId: string; permissionId: string; response: ProviderPermissionResponse }
    | { type: "session.configure"; requestId: string; sessionId: string; changes: ProviderConfigChanges }
    | { type: "session.revert"; requestId: string; sessionId: string; token: JsonValue; scope: "conversation" | "files" | "both" }
    | { type: "session.archive"; requestId: string; persistence: ProviderPersistence }
    | { type: "session.unarchive"; requestId: string; persistence: ProviderPersistence }
    | { type: "session.close"; requestId: string; sessionId: string }
    | { type: "session.can_stop_runtime"; requestId: string; sessionId: string };

  export interface ProviderError {
    message: string;
    code?: string;
    diagnostic?: string;
  }
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
  export type ProviderSetting =
    | { type: "toggle"; id: string; label: string; description?: string; value: boolean }
    | { type: "select"; id: string; label: string; description?: string; value: string | null; options: ReadonlyArray<{ label: string; value: string }> };
  export type ProviderControl =
    | { type: "toggle"; key: string; label: string; icon?: string; defaultValue: boolean }
    | { type: "select"; key: string; label: string; icon?: string; defaultValue: string | null; choices: ReadonlyArray<{ value: string; label: string }> };
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
  export interface ProviderCatalog {
    models: readonly ProviderModel[];
    modes: readonly ProviderMode[];
    thinkingOptions?: readonly ProviderThinkingOption[];
    defaultModel?: string;
    defaultMode?: string;
    defaultThinkingOption?: string;
  }
  export interface ProviderNotice {
    id: string;
    severity: "info" | "warning" | "error";
    title: string;
    description?: string;
    dismissed?: boolean;
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
  export interface ProviderPermissionRequest {
    id: string;
    name: string;
    kind: "tool" | "plan" | "question" | "mode" | "other";
    title?: string;
    description?: string;
    input?: Readonly<Record<string, JsonValue>>;
    metadata?: Readonly<Record<string, JsonValue>>;
  }

  export type ProviderEvent =
    | { type: "catalog"; requestId: string; catalog: ProviderCatalog }
    | { type: "sessions"; requestId: string; sessions: ProviderSessionSummary[] }
    | { type: "request.completed"; requestId: string }
    | { type: "request.failed"; requestId: string; error: ProviderError }
    | { type: "session.opened"; requestId?: string; sessionId: string; parentSessionId?: string; capabilities: readonly string[]; restoration: "core" | "parent"; persistence?: ProviderPersistence; title?: string; description?: string; cwd: string }
    | { type: "session.ready"; requestId?: string; sessionId: string }
    | { type: "session.closed"; sessionId: string; error?: ProviderError }
    | { type: "session.runtime_failed"; sessionId: string; error: ProviderError }
    | { type: "session.persistence"; sessionId: string; persistence: ProviderPersistence }
    | { type: "session.prompt_result"; sessionId: string; clientMessageId: string; result: { type: "turn"; turnId: string } | { type: "steer"; turnId: string } | { type: "completed" } | { type: "failed"; error: ProviderError } }
    | { type: "session.turn"; sessionId: string; turnId: string; state: "started" | "completed" | "failed" | "canceled"; error?: ProviderError }
    | { type: "session.usage"; sessionId: string; turnId?: string; usage: ProviderUsage }
    | { type: "session.config"; sessionId: string; config: ProviderConfigState }
    | { type: "session.commands"; sessionId: string; commands: ProviderCommand[] }
    | { type: "session.permission"; sessionId: string; request: ProviderPermissionRequest }
    | { type: "session.permission_resolved"; sessionId: string; permissionId: string }
    | { type: "session.notice"; sessionId: string; notice: ProviderNotice }
    | { type: "timeline.item"; sessionId: string; item: ProviderTimelineItem; timestamp?: string }
    | { type: "session.can_stop_runtime"; requestId: string; sessionId: string; canStop: boolean };

  export const ProviderEventSchema: ZodType<ProviderEvent>;
  export const ProviderInputSchema: ZodType<ProviderInput>;
  export const ProviderAvailabilitySchema: ZodType<ProviderAvailability>;
  export const ProviderStatusSchema: ZodType<ProviderStatus>;
  export function negotiateProviderCapabilities(offered: readonly string[], supported: readonly string[]): readonly ProviderCapability[];
  export function isProviderCapability(capability: string): capability is ProviderCapability;
  export function requireProviderCapabilities(capabilities: readonly string[], input: ProviderInput): void;
}
