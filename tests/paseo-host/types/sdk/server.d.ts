// Declarations of `@getpaseo/plugin/server` as far as a provider plugin meets them, transcribed
// from the facts of getpaseo/paseo `packages/server/src/server/plugins/plugin-process.ts` (the
// context its worker passes to the contribution: paseo, secrets, presence, handle,
// registerProvider, registerUsageSource, registerSettings, on, before, addForgeServerProvider;
// the contribution must return a cleanup function). Members the adapter does not use are typed
// opaquely (their exact types are the SDK's business), never `any`.

declare module "@getpaseo/plugin/server" {
  import type { ProviderRegistration } from "@getpaseo/plugin/server/provider";

  export interface PluginServerContext {
    paseo: unknown;
    secrets: unknown;
    presence: () => Promise<unknown>;
    handle: (contract: unknown, handler: (input: unknown, context: unknown) => unknown) => void;
    registerProvider(provider: ProviderRegistration): void;
    registerUsageSource: (source: unknown) => void;
    registerSettings: (definition: unknown) => unknown;
    on: (name: string, handler: (event: unknown) => unknown) => void;
    before: (name: string, handler: (request: unknown) => unknown) => void;
    addForgeServerProvider: (contribution: unknown) => void;
  }

  export type PluginServerContribution = (server: PluginServerContext) => () => void | Promise<void>;
}
