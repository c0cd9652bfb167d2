// The plugin process's IPC request schemas (daemon -> plugin process), per host generation,
// written by hand from getpaseo/paseo `packages/server/src/server/plugins/
// plugin-process-protocol.ts`:
// - 0.9 (read at 0424fa7d): `initialize {pluginId, bundle, appVersion, settingsDirectory?}`,
//   `provider.catalog_key` with options `{scope: "global", force?}` or `{scope: "workspace",
//   cwd, force?}`, `provider.connect` with a request `{versions, capabilities}`, no
//   `provider.status` nor `provider.history`;
// - newest (read at 743b27cd): `initialize` adds `pluginDirectory`; `provider.status` with a
//   request `{launch?}`; `provider.history` with a request `{persistence, cwd, env?, launch?}`;
//   `provider.catalog_key` options add `launch?`; `provider.connect`'s request adds `launch?`;
//   `usage.fetch` / `usage.discover`.
// Every object is strict, as there. The plugin process parses each request with these
// (`plugin-process.ts`, `handleMessage` / `process.on("message")`): one that fails is answered
// `provider.rejected` (and its connection closed) when it names a connection and an acceptance,
// else `fatal` and the plugin shuts down.

import { z } from "zod";
import { id, persistence } from "./schema-parts.mjs";

const frame = z.object({ type: z.literal("paseo_frame"), data: z.union([z.string(), z.instanceof(Uint8Array)]), isBinary: z.boolean() }).strict();

function shared({ ProviderInputSchema }) {
  return [
    z
      .object({ type: z.literal("hook"), requestId: z.string(), kind: z.enum(["event", "before"]), name: z.string(), input: z.unknown() })
      .strict(),
    z.object({ type: z.literal("hook.cancel"), requestId: z.string() }).strict(),
    z.object({ type: z.literal("invoke"), requestId: id, method: id, input: z.unknown() }).strict(),
    z.object({ type: z.literal("provider.send"), connectionId: id, acceptanceId: id, input: ProviderInputSchema }).strict(),
    z.object({ type: z.literal("provider.close"), connectionId: id }).strict(),
    z.object({ type: z.literal("shutdown") }).strict(),
    frame,
    z.object({ type: z.literal("paseo_close") }).strict(),
  ];
}

/** 0.9 (`plugin-process-protocol.ts@0424fa7d`). */
export function requestSchema09({ ProviderInputSchema, ProviderConnectRequestSchema }) {
  return z.discriminatedUnion("type", [
    z
      .object({ type: z.literal("initialize"), pluginId: id, bundle: z.string(), appVersion: z.string(), settingsDirectory: z.string().optional() })
      .strict(),
    z
      .object({
        type: z.literal("provider.catalog_key"),
        requestId: id,
        providerId: id,
        options: z.discriminatedUnion("scope", [
          z.object({ scope: z.literal("global"), force: z.boolean().optional() }).strict(),
          z.object({ scope: z.literal("workspace"), cwd: z.string(), force: z.boolean().optional() }).strict(),
        ]),
      })
      .strict(),
    z.object({ type: z.literal("provider.connect"), providerId: id, connectionId: id, request: ProviderConnectRequestSchema }).strict(),
    ...shared({ ProviderInputSchema }),
  ]);
}

/** Newest (`plugin-process-protocol.ts@743b27cd`). */
export function requestSchemaNewest({ ProviderInputSchema, ProviderConnectRequestSchema, ProviderLaunchSchema }) {
  const launch = ProviderLaunchSchema.optional();
  return z.discriminatedUnion("type", [
    z.object({ type: z.literal("provider.status"), requestId: id, providerId: id, request: z.object({ launch }).strict() }).strict(),
    z
      .object({
        type: z.literal("provider.history"),
        requestId: id,
        providerId: id,
        request: z.object({ persistence, cwd: z.string(), env: z.record(z.string(), z.string()).optional(), launch }).strict(),
      })
      .strict(),
    z
      .object({
        type: z.literal("initialize"),
        pluginId: id,
        bundle: z.string(),
        appVersion: z.string(),
        pluginDirectory: z.string(),
        settingsDirectory: z.string().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("provider.catalog_key"),
        requestId: id,
        providerId: id,
        options: z.discriminatedUnion("scope", [
          z.object({ scope: z.literal("global"), force: z.boolean().optional(), launch }).strict(),
          z.object({ scope: z.literal("workspace"), cwd: z.string(), force: z.boolean().optional(), launch }).strict(),
        ]),
      })
      .strict(),
    z.object({ type: z.literal("usage.fetch"), requestId: z.string(), sourceId: z.string(), input: z.unknown() }).strict(),
    z.object({ type: z.literal("usage.discover"), requestId: z.string(), sourceId: z.string() }).strict(),
    z.object({ type: z.literal("provider.connect"), providerId: id, connectionId: id, request: ProviderConnectRequestSchema }).strict(),
    ...shared({ ProviderInputSchema }),
  ]);
}
