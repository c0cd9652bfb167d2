// Host generation "0.9": Paseo's `@getpaseo/plugin/server/provider` as of getpaseo/paseo commit
// bd898554 (`packages/plugin/src/server/provider.ts`, @getpaseo/plugin 0.9.x), written by hand
// from its facts. What sets it apart from the newest generation:
// - `ProviderConfigState` requires `settings: ProviderSetting[]` and knows no `controls` /
//   `providerOptions` (dropped, as unknown keys of an event are);
// - `ProviderSessionConfig` requires `settings` (a JSON object); `ProviderConfigChanges` has
//   `model` / `mode` / `thinkingOption` / `settings` only;
// - no `session.can_stop_runtime` (capability, input or event), no `launch` in the connect
//   request (the plugin process's connect request schema is strict `{versions, capabilities}`);
// - no `status()` hook and no `command` on a registration (the daemon rebuilds each provider from
//   id, label, description, getCatalogCacheKey, icon and connect).

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
  toolPolicy,
} from "./schema-parts.mjs";
import { requestSchema09 } from "./ipc-requests.mjs";

export const GENERATION = "0.9";
/**
 * The Paseo release this generation stands for, the oldest the emulator proves: the plugin
 * runtime and process it follows are those of commit 0424fa7d, whose SDK package.json says
 * @getpaseo/plugin 0.9.2 (the stored sources name no earlier 0.9 release with this protocol).
 * `paseo-plugin.json`'s `requirements.paseo` is `>=` this (schemas.test.mjs checks it).
 */
export const PASEO_VERSION = "0.9.2";
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
    settings: jsonObject,
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
    settings: jsonObject.optional(),
  })
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
]);

const configState = z
  .object({
    model: z.string().optional(),
    mode: z.string().optional(),
    thinkingOption: z.string().optional(),
    models: z.array(model),
    modes: z.array(mode),
    thinkingOptions: z.array(thinkingOption),
    settings: z.array(setting),
  })
  .strip();

export const ProviderEventSchema = z.discriminatedUnion("type", [
  ...commonEvents(),
  z.object({ type: z.literal("session.config"), sessionId: id, config: configState }).strip(),
]);

export const ProviderAvailabilitySchema = z
  .object({
    status: z.enum(["missing", "unrunnable", "incompatible", "available"]),
    diagnostic: z.string().max(4096).optional(),
  })
  .strict();

/** The plugin process's connect request (strict: no `launch` in this generation). */
export const ProviderConnectRequestSchema = z
  .object({ versions: z.array(z.number().int().positive()), capabilities: z.array(z.string()) })
  .strict();

const helpers = capabilityHelpers(PROVIDER_CAPABILITIES);
export const isProviderCapability = helpers.isProviderCapability;
export const requiredProviderCapabilities = helpers.requiredProviderCapabilities;
export const requireProviderCapabilities = helpers.requireProviderCapabilities;

export function negotiateProviderCapabilities(offered, supported) {
  const wanted = new Set(supported.filter(isProviderCapability));
  return offered.filter((c, i) => isProviderCapability(c) && wanted.has(c) && offered.indexOf(c) === i);
}

/** The plugin process's IPC requests (`plugin-process-protocol.ts@0424fa7d`), strict. */
export const PluginProcessRequestSchema = requestSchema09({ ProviderInputSchema, ProviderConnectRequestSchema });

/** How this generation's plugin process treats a registration. */
export const REGISTRATION = { status: false, command: false, history: false };
