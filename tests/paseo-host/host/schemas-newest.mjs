// Host generation "newest": Paseo's provider protocol as the newest public sources describe it,
// written by hand from their facts:
// - the seed provider guide (`shared/seeds/paseo-provider-plugins.md`, mirrored from
//   getpaseo/paseo, synced 2026-11-10): `session.config` carries composer `controls` (toggle /
//   select over one top-level `providerOptions` key: `key`, `label`, `icon?`, `defaultValue`,
//   `choices` for a select) and the `providerOptions` values; `settings` is the legacy style,
//   still accepted ("a plugin still reporting settings"); `session.configure` changes carry
//   `providerOptions` (a `null` value resets a key); `session.can_stop_runtime` (capability,
//   input `{requestId, sessionId}`, event `{requestId, sessionId, canStop}`); the connect
//   request's `launch` (`command`, `args` prefix, full `env`);
// - the newer plugin process (`packages/server/src/server/plugins/plugin-process.ts`, a stored
//   version with `ProviderStatusSchema`): a registration's `status` must be a function and
//   `command` a non-empty array of non-blank strings; `provider.status` calls
//   `status(request)` and parses its answer with `ProviderStatusSchema`.
// Not in those sources, so ASSUMED here (and marked so): the exact field list of a control
// (kept open: unknown keys stripped), whether `controls` and `providerOptions` are each
// required (transcribed as: a config has `settings`, or `controls` with `providerOptions`), the
// shape of `ProviderStatusSchema` (assumed to be the availability shape `{status, diagnostic?}`)
// and of `ProviderHistoryReadResultSchema` (below). The IPC requests (the status request
// `{launch?}`, strict) are `plugin-process-protocol.ts@743b27cd`'s (./ipc-requests.mjs).
// Everything else is the 0.9 generation's (provider.ts@bd898554).

import { z } from "zod";
import {
  capabilityHelpers,
  commonEvents,
  commonInputs,
  id,
  jsonObject,
  mcpServer,
  mode,
  model,
  persistence,
  setting,
  thinkingOption,
  timelineItem,
  toolPolicy,
} from "./schema-parts.mjs";
import { requestSchemaNewest } from "./ipc-requests.mjs";

export const GENERATION = "newest";
export const PASEO_VERSION = "0.10.0";
export const PROVIDER_PROTOCOL_VERSION = 1;

export const PROVIDER_CAPABILITIES = [
  "prompt.message",
  "prompt.command",
  "prompt.image",
  "prompt.output_schema",
  "prompt.steer",
  "session.archive",
  "session.configure",
  "session.list",
  "session.persistence",
  "session.revert.both",
  "session.revert.conversation",
  "session.revert.files",
  "session.subsession",
  "session.unarchive",
  "session.can_stop_runtime",
  "permission",
  "permission.tool_policy",
  "timeline.plugin",
];

const catalogConfiguration = { providerOptions: jsonObject.optional(), settings: jsonObject.optional() };

const sessionConfig = z
  .object({
    cwd: z.string(),
    env: z.record(z.string(), z.string()),
    systemPrompt: z.string().optional(),
    mcpServers: z.record(z.string(), mcpServer),
    toolPolicy: toolPolicy.optional(),
    deniedTools: z.array(z.string().trim().min(1).max(256)).max(512).optional(),
    model: z.string().optional(),
    mode: z.string().optional(),
    thinkingOption: z.string().optional(),
    settings: jsonObject.optional(),
    providerOptions: jsonObject.optional(),
    title: z.string().optional(),
    persist: z.boolean(),
  })
  .strict();

const configChanges = z
  .object({
    model: z.string().nullable().optional(),
    mode: z.string().nullable().optional(),
    thinkingOption: z.string().nullable().optional(),
    providerOptions: jsonObject.optional(),
    settings: jsonObject.optional(),
  })
  .strict();

export const ProviderLaunchSchema = z
  .object({ command: z.string().min(1), args: z.array(z.string()), env: z.record(z.string(), z.string()) })
  .strict();

export const ProviderInputSchema = z.discriminatedUnion("type", [
  ...commonInputs({ catalogConfiguration }),
  z
    .object({
      type: z.literal("session.open"),
      requestId: id,
      sessionId: id,
      config: sessionConfig,
      persistence: persistence.optional(),
      history: z.enum(["replay", "skip"]),
    })
    .strict(),
  z.object({ type: z.literal("session.configure"), requestId: id, sessionId: id, changes: configChanges }).strict(),
  z.object({ type: z.literal("session.can_stop_runtime"), requestId: id, sessionId: id }).strict(),
]);

/** A composer control (ASSUMED field list beyond the guide's example; unknown keys stripped). */
const control = z.discriminatedUnion("type", [
  z
    .object({ type: z.literal("toggle"), key: id, label: z.string(), icon: z.string().optional(), defaultValue: z.boolean() })
    .strip(),
  z
    .object({
      type: z.literal("select"),
      key: id,
      label: z.string(),
      icon: z.string().optional(),
      defaultValue: z.string().nullable(),
      choices: z.array(z.object({ value: z.string(), label: z.string() }).strip()),
    })
    .strip(),
]);

const configState = z
  .object({
    model: z.string().optional(),
    mode: z.string().optional(),
    thinkingOption: z.string().optional(),
    models: z.array(model),
    modes: z.array(mode),
    thinkingOptions: z.array(thinkingOption),
    settings: z.array(setting).optional(),
    controls: z.array(control).optional(),
    providerOptions: jsonObject.optional(),
  })
  .strip()
  .refine(
    (config) =>
      config.settings !== undefined || (config.controls !== undefined && config.providerOptions !== undefined),
    { message: "a config reports settings, or controls with providerOptions" },
  );

export const ProviderEventSchema = z.discriminatedUnion("type", [
  ...commonEvents(),
  z.object({ type: z.literal("session.config"), sessionId: id, config: configState }).strip(),
  z
    .object({ type: z.literal("session.can_stop_runtime"), requestId: id, sessionId: id, canStop: z.boolean() })
    .strip(),
]);

export const ProviderAvailabilitySchema = z
  .object({
    status: z.enum(["missing", "unrunnable", "incompatible", "available"]),
    diagnostic: z.string().max(4096).optional(),
  })
  .strict();

/** ASSUMED: the availability shape (the stored sources import it without defining it). */
export const ProviderStatusSchema = ProviderAvailabilitySchema;

export const ProviderConnectRequestSchema = z
  .object({
    versions: z.array(z.number().int().positive()),
    capabilities: z.array(z.string()),
    launch: ProviderLaunchSchema.optional(),
  })
  .strict();

const helpers = capabilityHelpers(PROVIDER_CAPABILITIES);
export const isProviderCapability = helpers.isProviderCapability;
export const requiredProviderCapabilities = helpers.requiredProviderCapabilities;
export const requireProviderCapabilities = helpers.requireProviderCapabilities;

export function negotiateProviderCapabilities(offered, supported) {
  const wanted = new Set(supported.filter(isProviderCapability));
  return offered.filter((c, i) => isProviderCapability(c) && wanted.has(c) && offered.indexOf(c) === i);
}

/**
 * ASSUMED: `ProviderHistoryReadResultSchema` is imported by the newer plugin process and
 * daemon (`plugin-process.ts@743b27cd`, `runtime.ts@743b27cd`) but not defined in the public
 * sources; transcribed from the provider guide's example (`public-docs/plugins/providers.md`
 * @743b27cd): complete timeline snapshots, a coverage, optional children.
 */
export const ProviderHistoryReadResultSchema = z
  .object({
    items: z.array(timelineItem),
    coverage: z.object({ kind: z.literal("complete") }).strip(),
    children: z.array(z.unknown()).optional(),
  })
  .strip();

/** The plugin process's IPC requests (`plugin-process-protocol.ts@743b27cd`), strict. */
export const PluginProcessRequestSchema = requestSchemaNewest({
  ProviderInputSchema,
  ProviderConnectRequestSchema,
  ProviderLaunchSchema,
});

/** How this generation's plugin process treats a registration. */
export const REGISTRATION = { status: true, command: true, history: true };
