// The real providers the third-party ACP clients drive (real-sdk.test.mjs, real-acpx.test.mjs),
// each with its own choices, copied from its Rust end-to-end suite
// (tests/conformance/tests/agnostic_<name>.rs, and its config patch where it has one):
//
// - `askMode`: the mode that asks before a file-writing command (`undefined`: the session's
//   mode at open, which asks);
// - `otherMode`: a mode to switch to (`undefined`: the provider has one mode, `onlyMode`, and
//   `oneMode` says why);
// - `config`: the config option to change and its value, one that keeps the session on the mock
//   (`undefined`: the SDK file takes the model option's first other value and acpx sets
//   `acpxModel`; `noConfigChange`: why no option can change);
// - `neverAsks`: why the agent never asks (its tool runs unasked, checked);
// - `escalate`: the asking mode asks only for a command the model marks as needing more than the
//   sandbox (codex-acp in `read-only`): the mock is told to ask for that (`escalation`);
// - `denyCancels`: why a denied tool ends the turn `cancelled` (the agent's only reject option
//   aborts the turn), not `end_turn`;
// - `streams: false`: the agent sends a reply's text only once the model is done, so "mid-turn"
//   is "the model has the prompt" (the mock's request log), not "text streams";
// - `patch(rig)`: changes to the hermetic config the Rust suite makes too.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Rewrites the JSON file `rel` under the rig's XDG config home with `change`. */
function patchConfig(rig, rel, change) {
  const file = join(rig.env.XDG_CONFIG_HOME ?? join(rig.env.HOME, ".config"), rel);
  const config = JSON.parse(readFileSync(file, "utf8"));
  change(config);
  writeFileSync(file, JSON.stringify(config));
}

/**
 * OpenCode and Kilo (its fork): modes are agents; a `yolo` agent allows every tool, the mock model
 * takes images (they drop image parts for a text-only model) and a second mock model to switch to
 * (never a bundled `opencode/*` model: those would go to the network). OpenCode's shell and edits
 * also ask (its recipe allows them; Kilo's recipe asks already).
 */
const openCodeFamily = (rel, ask) => (rig) =>
  patchConfig(rig, rel, (config) => {
    if (ask) config.permission = { bash: "ask", edit: "ask" };
    config.agent = {
      yolo: { mode: "primary", description: "Runs every tool without asking", permission: { bash: "allow", edit: "allow" } },
    };
    config.provider.mock.models["mock-model"].modalities = { input: ["text", "image"], output: ["text"] };
    config.provider.mock.models["mock-model-2"] = {
      name: "Mock Model 2",
      tool_call: true,
      limit: { context: 128000, output: 8192 },
    };
  });

const all = [
  { provider: "claude-bridge", cli: "claude", askMode: "default", otherMode: "acceptEdits", acpxModel: "sonnet" },
  { provider: "codex-bridge", cli: "codex", askMode: "ask", otherMode: "auto", acpxModel: "mock-model" },
  // Gemini refuses its privileged modes (autoEdit, yolo) in a folder it does not trust.
  { provider: "gemini-bridge", cli: "gemini", askMode: "default", otherMode: "plan", acpxModel: "gemini-2.5-pro" },
  {
    provider: "qwen-bridge",
    cli: "qwen",
    askMode: "default",
    otherMode: "plan",
    noConfigChange: "qwen-bridge's only other models are Qwen's OAuth models, which need a login",
  },
  { provider: "claude-acp-bridge", cli: "claude-agent-acp", askMode: "default", otherMode: "acceptEdits", acpxModel: "haiku" },
  {
    provider: "opencode-bridge",
    cli: "opencode",
    askMode: "build",
    otherMode: "yolo",
    config: { id: "model", value: "mock/mock-model-2" },
    patch: openCodeFamily("opencode/opencode.json", true),
  },
  {
    provider: "codex-acp-bridge",
    cli: "codex-acp",
    askMode: "read-only",
    otherMode: "full-access",
    config: { id: "model", value: "gpt-5.4" },
    escalate: true,
    denyCancels: "codex-acp's only reject option is `abort`, \"No, and tell Codex what to do differently\", which ends the turn",
  },
  {
    // No models under a provider of its own: the config option is the mode's (its unattended
    // switch `allow_all`, offered as a mode).
    provider: "copilot-bridge",
    cli: "copilot",
    askMode: "https://agentclientprotocol.com/protocol/session-modes#agent",
    otherMode: "allow_all",
    config: { id: "mode", value: "allow_all", why: "no models under a provider of its own" },
  },
  {
    provider: "kilo-bridge",
    cli: "kilo",
    askMode: "code",
    otherMode: "yolo",
    config: { id: "model", value: "mock/mock-model-2" },
    patch: openCodeFamily("kilo/kilo.json", false),
  },
  {
    // One model under an OpenAI-compatible provider: the config option is the mode's (the
    // boolean switch `auto_approve`, offered as a mode).
    provider: "cline-bridge",
    cli: "cline",
    askMode: "act",
    otherMode: "auto_approve",
    config: { id: "mode", value: "auto_approve", why: "one model under an OpenAI-compatible provider" },
  },
  {
    provider: "kimi-bridge",
    cli: "kimi",
    askMode: "default",
    otherMode: "auto",
    config: { id: "mode", value: "auto", why: "one model under a provider of its own" },
  },
  {
    // One custom model; its thinking level changes on the same model.
    provider: "droid-bridge",
    cli: "droid",
    askMode: "normal",
    otherMode: "auto-high",
    config: { id: "thought_level", value: "low" },
    streams: false,
  },
  {
    // The built-in models (grok-4.6, grok-4.5) are xAI's: the recipe's second custom model.
    provider: "grok-bridge",
    cli: "grok",
    onlyMode: "always-approve",
    oneMode: "grok-bridge has one mode, `always-approve` (Grok's switch is the process flag the profile passes)",
    neverAsks: "Grok never asks (no session/request_permission, even with `[ui] permission_mode = \"ask\"`)",
    config: { id: "model", value: "mock2" },
  },
  {
    provider: "pi-bridge",
    cli: "pi-acp",
    onlyMode: "off",
    oneMode: "pi-bridge's modes are the model's thinking levels, and the mock's models have one (`off`)",
    neverAsks: "Pi has no permission layer: every tool runs unasked",
    config: { id: "model", value: "mock/mock-model-2" },
  },
  // `ask` asks before `touch` (it runs read-only commands such as `echo` unasked).
  { provider: "vibe-bridge", cli: "vibe-acp", askMode: "ask", otherMode: "auto-approve", config: { id: "model", value: "mock2" } },
  // Its modes are process modes (`yolo` is the process flag `--yolo`): a mode change moves the
  // session to a process of the other mode.
  { provider: "deepagents-bridge", cli: "dcode", askMode: "ask", otherMode: "yolo", config: { id: "model", value: "openai:mock-model-2" } },
  {
    provider: "openhands-bridge",
    cli: "openhands",
    askMode: "always-ask",
    otherMode: "always-approve",
    config: { id: "mode", value: "always-approve", why: "no model to switch to (one under a provider of its own)" },
    streams: false,
    busyAfterCancel: "OpenHands lets the model request in flight finish after session/cancel and answers nothing else (a set_mode, say) until then",
    replayWithoutPrompts: "OpenHands leaves the user's messages out of its session/load replay (on purpose: a client shows them when sent)",
  },
];

/** The providers a run drives: all, or those `ACP_CLIENTS_PROVIDERS` names (comma-separated). */
const only = process.env.ACP_CLIENTS_PROVIDERS?.split(",").filter(Boolean);
const chosen = only ? all.filter((p) => only.includes(p.provider)) : all;
/**
 * The slowest first, so that a pool ends sooner: Kilo and OpenCode (seconds to start, and again
 * after a kill and for each list), then Qwen, Vibe, Kimi and Cline (measured, 2-core machine).
 */
const slowest = ["kilo-bridge", "opencode-bridge", "qwen-bridge", "vibe-bridge", "kimi-bridge", "cline-bridge"];
const rank = (p) => (slowest.includes(p.provider) ? slowest.indexOf(p.provider) : slowest.length);
export const providers = [...chosen].sort((a, b) => rank(a) - rank(b));

/**
 * The providers acpx drives (real-acpx.test.mjs): `ACP_CLIENTS_ACPX` (comma-separated ids, or
 * `all`); by default one per family of the bridge's side (claude-bridge's stream-json,
 * codex-bridge's app-server, an ACP agent with modes and config options, claude-acp-bridge, and
 * opencode-bridge, the ACP agent with a loopback server of its own). acpx is a client of the
 * facade, whose protocol is the same whatever agent is behind it; each of its commands is a
 * process of its own that starts an agent, which on a 2-core CI machine costs more than every
 * other provider's run of the SDK client. The SDK client (real-sdk.test.mjs) drives every one.
 */
const acpxOnly = (process.env.ACP_CLIENTS_ACPX ?? "claude-bridge,codex-bridge,claude-acp-bridge,opencode-bridge")
  .split(",")
  .filter(Boolean);
export const acpxProviders = acpxOnly.includes("all") ? providers : providers.filter((p) => acpxOnly.includes(p.provider));

/** A regex (the mock's rules are regexes) matching `text` as it is. */
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A mock rule: the prompt `text` gets a reply streamed for 30 s (200 pieces, 150 ms apart), so
 * that a cancel or a kill sent once it streams lands mid-turn even when a loaded machine delays
 * the agent's first chunk (the mock's default `SLOW` reply streams for 6 s).
 */
export function slowReply(text) {
  const reply = Array.from({ length: 200 }, (_, i) => `slow${i} `).join("");
  return { rules: [{ match: literal(text), reply: { slow_text: { text: reply, chunks: 200, interval_ms: 150 } } }] };
}

/**
 * A mock rule for codex-acp in `read-only`: the prompt naming `file` makes the model call
 * `exec_command` asking for escalation (as agnostic_codex_acp.rs scripts it), so the agent asks;
 * a plain command would run sandboxed, unasked.
 */
export function escalation(prompt, command) {
  return {
    rules: [
      {
        match: literal(prompt),
        reply: {
          tool_call: {
            name: "exec_command",
            arguments: { cmd: command, sandbox_permissions: "require_escalated", justification: "the test needs a file written" },
          },
        },
      },
    ],
  };
}

/**
 * How many providers a file runs at once (`ACP_CLIENTS_POOL`, default 2; run.sh runs both real
 * files at once): more on a loaded 2-core machine pushed Kilo's session list (a fresh agent
 * process) past the bridge's 30 s limit.
 */
export const pool = Number(process.env.ACP_CLIENTS_POOL ?? 2);
