// Type-level check (tsc --strict, no emit): what the adapter builds is assignable to the real
// SDK's types as transcribed in ./sdk. Nothing here runs.

import type { PluginServerContribution } from "@getpaseo/plugin/server";
import type {
  ProviderConnection as SdkConnection,
  ProviderEvent as SdkEvent,
  ProviderInput as SdkInput,
  ProviderRegistration as SdkRegistration,
} from "@getpaseo/plugin/server/provider";
import contribute from "../../../index.server";
import type { BridgeConnection } from "../../../server/connection";
import { BridgeManager, createProviderRegistration } from "../../../server/provider";
import type { ProviderEvent, ProviderInput } from "../../../server/types";

// The entry is a contribution Paseo can call.
export const entry: PluginServerContribution = contribute;

// A registration is one.
declare const manager: BridgeManager;
export const registration: SdkRegistration = createProviderRegistration(
  manager,
  { id: "claude-bridge", label: "Claude Code", command: ["claude"] },
  "icon.svg",
);

// A connection is one.
declare const connection: BridgeConnection;
export const sdkConnection: SdkConnection = connection;

// Every SDK input is an input the adapter takes, and every SDK event one it emits.
export function input(value: SdkInput): ProviderInput {
  return value;
}
export function event(value: SdkEvent): ProviderEvent {
  return value;
}
