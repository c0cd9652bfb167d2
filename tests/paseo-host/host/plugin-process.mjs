// The emulated Paseo plugin process: the child the daemon forks for a plugin's server entry
// (`packages/server/src/server/plugins/plugin-process.ts` and `bundle-evaluator.ts` of
// getpaseo/paseo, read at 0424fa7d / 04ebfc13 and in the newer stored version with `status`).
// Behaviour written from those facts:
// - `initialize` carries the compiled bundle; it is evaluated with `globalThis.eval`, the
//   factory called with the runtime `require` (the host's own SDK modules and `zod`, Node's
//   `require` for everything else); `exports.default` must be a function, called with the
//   server context, and must return a cleanup function; then `ready` lists the providers;
// - `registerProvider` checks the id (`^[a-z][a-z0-9._-]*$`, unique), a non-blank label, a
//   `connect` function, a `getCatalogCacheKey` function when present, and (newest) a `status`
//   function and a `command` of non-blank strings when present;
// - every input is parsed with the host's `ProviderInputSchema` (strict) before it reaches the
//   plugin; one that fails is rejected and its connection closed;
// - every event is parsed with the host's `ProviderEventSchema` after a JSON round trip; one that
//   fails closes the connection (`provider.closed` with the error), which fails every session;
// - every IPC request is parsed with the generation's strict request schema first
//   (`plugin-process-protocol.ts`, ./ipc-requests.mjs): one that fails is `provider.rejected`
//   (and its connection closed) when it names a connection and an acceptance, else `fatal` and
//   the plugin shuts down (`handleMessage` of `plugin-process.ts@743b27cd`);
// - (newest) `provider.history` calls `readSessionHistory(request)` and parses the answer with
//   `ProviderHistoryReadResultSchema`; the ready metadata says `hasHistoryReader`;
// - `shutdown`: no new work, the plugin's cleanup, every connection closed, then disconnect.
// The emulator adds two things of its own: a refused event is reported with the event and the
// first problem, so a test can name it; the host generation (and whether the SDK is served)
// comes as the process's arguments, not in `initialize`, whose schema is strict.

import { createRequire } from "node:module";
import * as zod from "zod";

const nodeRequire = createRequire(import.meta.url);
const CLIENT_ONLY = ["@getpaseo/plugin/client", "@getpaseo/plugin/client/ui", "@getpaseo/plugin/client/react-native"];

// The host generation's provider module, and whether plugins may `require` it.
const sdk = await import(`./schemas-${process.argv[2] ?? "newest"}.mjs`);
const withSdk = process.argv[3] !== "nosdk";
const providers = new Map();
const connections = new Map();
const pending = new Map();
let cleanup = null;
let stopping = false;

function send(message) {
  process.send?.(message);
}

function describeError(error) {
  return error instanceof Error ? error.message : String(error);
}

function transported(value) {
  const encoded = JSON.stringify(value);
  if (encoded === undefined) throw new Error("Provider value is not JSON-serializable");
  return JSON.parse(encoded);
}

function runtimeRequire(name) {
  if (CLIENT_ONLY.includes(name)) throw new Error(`${name} is available only in plugin client code`);
  if (name === "@getpaseo/plugin/server/provider") {
    if (!withSdk) throw new Error(`Cannot find module '${name}' (the emulated host serves no SDK)`);
    return sdk;
  }
  if (name === "@getpaseo/plugin" || name === "@getpaseo/plugin/server") return {};
  if (name === "zod") return zod;
  return nodeRequire(name);
}

function registerProvider(provider) {
  const id = String(provider?.id ?? "").trim();
  if (!/^[a-z][a-z0-9._-]*$/.test(id)) throw new Error(`Invalid plugin provider ID: ${provider?.id}`);
  if (typeof provider.label !== "string" || !provider.label.trim()) {
    throw new Error(`Plugin provider ${id} requires a label`);
  }
  if (typeof provider.connect !== "function") throw new Error(`Plugin provider ${id} must implement connect()`);
  if (provider.getCatalogCacheKey !== undefined && typeof provider.getCatalogCacheKey !== "function") {
    throw new Error(`Invalid catalogue key callback for plugin provider ${id}`);
  }
  if (sdk.REGISTRATION.status && provider.status !== undefined && typeof provider.status !== "function") {
    throw new Error(`Invalid status callback for plugin provider ${id}`);
  }
  if (
    sdk.REGISTRATION.command &&
    provider.command !== undefined &&
    (!Array.isArray(provider.command) ||
      provider.command.length === 0 ||
      provider.command.some((part) => typeof part !== "string" || !part.trim()))
  ) {
    throw new Error(`Invalid command for plugin provider ${id}`);
  }
  if (providers.has(id)) throw new Error(`Duplicate plugin provider ID: ${id}`);
  providers.set(id, { ...provider, id });
}

function metadata(provider) {
  const entry = {
    id: provider.id,
    label: provider.label,
    description: provider.description,
    iconPath: provider.icon,
    hasCatalogCacheKey: provider.getCatalogCacheKey !== undefined,
  };
  if (sdk.REGISTRATION.status) entry.hasStatus = provider.status !== undefined;
  if (sdk.REGISTRATION.command) entry.command = provider.command;
  if (sdk.REGISTRATION.history) entry.hasHistoryReader = provider.readSessionHistory !== undefined;
  // What this generation's daemon keeps of a registration: it never sees checkAvailability.
  entry.hooks = Object.keys(provider).filter((key) => typeof provider[key] === "function").sort();
  return entry;
}

async function initialize(message) {
  const factory = globalThis.eval(message.bundle);
  if (typeof factory !== "function") throw new Error("Plugin server bundle is not executable");
  const exports = factory(runtimeRequire);
  const setup = exports !== null && typeof exports === "object" ? Reflect.get(exports, "default") : undefined;
  if (typeof setup !== "function") throw new Error("Plugin server bundle must default export a function");
  const contributed = setup({
    registerProvider,
    handle() {},
    registerSettings() {
      throw new Error("Plugin settings storage is unavailable");
    },
    on() {},
    before() {},
  });
  if (typeof contributed !== "function") throw new Error("Plugin contribution must return a cleanup function");
  cleanup = contributed;
  send({
    type: "ready",
    providers: [...providers.values()].sort((a, b) => a.id.localeCompare(b.id)).map(metadata),
  });
}

/** The first problem of a failed parse: `path: message`. */
function problemOf(error) {
  const issue = error?.issues?.[0];
  if (!issue) return describeError(error);
  return `${issue.path.map(String).join(".") || "(event)"}: ${issue.message}`;
}

async function connectProvider(message) {
  if (stopping) throw new Error("Plugin is stopping");
  const provider = providers.get(message.providerId);
  if (!provider) throw new Error(`Unknown plugin provider: ${message.providerId}`);
  if (connections.has(message.connectionId) || pending.has(message.connectionId)) {
    throw new Error(`Duplicate provider connection: ${message.connectionId}`);
  }
  const request = sdk.ProviderConnectRequestSchema.parse(message.request);
  const state = { tombstoned: false };
  pending.set(message.connectionId, state);
  let connection;
  try {
    connection = await provider.connect(request);
  } finally {
    pending.delete(message.connectionId);
  }
  if (state.tombstoned || stopping) {
    await connection.close().catch(() => undefined);
    return;
  }
  const entry = { connection, unsubscribe: () => {} };
  entry.unsubscribe = connection.onEvent((event) => {
    let parsed;
    try {
      parsed = sdk.ProviderEventSchema.parse(transported(event));
    } catch (error) {
      connections.delete(message.connectionId);
      entry.unsubscribe();
      void connection.close().catch(() => undefined);
      send({
        type: "provider.closed",
        connectionId: message.connectionId,
        error: describeError(error),
        refusedEvent: { type: event?.type, problem: problemOf(error), event: transported(event) },
      });
      return;
    }
    send({ type: "provider.event", connectionId: message.connectionId, event: parsed });
  });
  connections.set(message.connectionId, entry);
  send({
    type: "provider.connected",
    connectionId: message.connectionId,
    version: connection.version,
    capabilities: [...connection.capabilities],
  });
}

async function sendInput(message) {
  if (stopping) throw new Error("Plugin is stopping");
  const current = connections.get(message.connectionId);
  if (!current) throw new Error(`Unknown provider connection: ${message.connectionId}`);
  if (current.closing) throw new Error("Provider connection is closing");
  await current.connection.send(message.input);
  send({ type: "provider.accepted", connectionId: message.connectionId, acceptanceId: message.acceptanceId });
}

function closeConnection(connectionId) {
  const current = connections.get(connectionId);
  if (!current) return Promise.resolve();
  current.closing ??= (async () => {
    current.unsubscribe();
    try {
      await current.connection.close();
      send({ type: "provider.closed", connectionId });
    } catch (error) {
      send({ type: "provider.closed", connectionId, error: describeError(error) });
    } finally {
      connections.delete(connectionId);
    }
  })();
  return current.closing;
}

async function shutdown() {
  if (stopping) return;
  stopping = true;
  for (const state of pending.values()) state.tombstoned = true;
  const current = cleanup;
  cleanup = null;
  try {
    await current?.();
  } catch (error) {
    console.error("Plugin cleanup failed", error);
  }
  await Promise.all([...connections.keys()].map(closeConnection));
  process.disconnect();
}

function answer(message, work) {
  void (async () => work())().then(
    (output) => send({ type: "result", requestId: message.requestId, output }),
    (error) => send({ type: "error", requestId: message.requestId, error: describeError(error) }),
  );
}

process.on("message", (raw) => {
  const parsed = sdk.PluginProcessRequestSchema.safeParse(raw);
  if (!parsed.success) {
    if (typeof raw?.connectionId === "string" && typeof raw?.acceptanceId === "string") {
      send({
        type: "provider.rejected",
        connectionId: raw.connectionId,
        acceptanceId: raw.acceptanceId,
        error: `Invalid provider input: ${problemOf(parsed.error)}`,
      });
      void closeConnection(raw.connectionId);
      return;
    }
    send({ type: "fatal", error: `Invalid plugin process request: ${problemOf(parsed.error)}` });
    void shutdown();
    return;
  }
  const message = parsed.data;
  if (message.type === "initialize") {
    initialize(message).catch((error) => send({ type: "fatal", error: describeError(error) }));
    return;
  }
  if (message.type === "shutdown") {
    void shutdown();
    return;
  }
  if (stopping) {
    if (message.type === "provider.connect") {
      send({ type: "provider.connect_failed", connectionId: message.connectionId, error: "Plugin is stopping" });
    } else if (message.type === "provider.send") {
      send({ type: "provider.rejected", connectionId: message.connectionId, acceptanceId: message.acceptanceId, error: "Plugin is stopping" });
    } else if (message.requestId) {
      send({ type: "error", requestId: message.requestId, error: "Plugin is stopping" });
    }
    return;
  }
  switch (message.type) {
    case "provider.connect":
      connectProvider(message).catch((error) => {
        if (stopping) return;
        send({ type: "provider.connect_failed", connectionId: message.connectionId, error: describeError(error) });
      });
      return;
    case "provider.send":
      sendInput(message).catch((error) =>
        send({
          type: "provider.rejected",
          connectionId: message.connectionId,
          acceptanceId: message.acceptanceId,
          error: describeError(error),
        }),
      );
      return;
    case "provider.close":
      void closeConnection(message.connectionId);
      return;
    case "provider.status":
      answer(message, async () => {
        const provider = providers.get(message.providerId);
        if (!sdk.REGISTRATION.status || !provider?.status) {
          throw new Error(`Provider has no status capability: ${message.providerId}`);
        }
        return sdk.ProviderStatusSchema.parse(await provider.status(message.request));
      });
      return;
    case "provider.history":
      answer(message, async () => {
        const provider = providers.get(message.providerId);
        if (!provider?.readSessionHistory) {
          throw new Error(`Provider has no history reader capability: ${message.providerId}`);
        }
        return sdk.ProviderHistoryReadResultSchema.parse(transported(await provider.readSessionHistory(message.request)));
      });
      return;
    case "provider.catalog_key":
      answer(message, async () => {
        const provider = providers.get(message.providerId);
        if (!provider) throw new Error(`Unknown provider: ${message.providerId}`);
        const output = await provider.getCatalogCacheKey?.(message.options);
        if (output !== undefined && typeof output !== "string") throw new Error("Invalid catalogue key");
        return output;
      });
      return;
    default:
      send({ type: "error", requestId: message.requestId, error: `Unknown request ${message.type}` });
  }
});
