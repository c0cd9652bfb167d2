// The emulated Paseo daemon side of a plugin (`packages/server/src/server/plugins/runtime.ts` of
// getpaseo/paseo, read at 0424fa7d): forks the plugin process (IPC, advanced serialization,
// stdout/stderr captured), sends it the compiled bundle, and drives its providers:
// - connect: 30 s limit; the selected version must be an integer >= 1 the request offered, and
//   every known capability selected must have been offered; capabilities are kept in the
//   host's order;
// - send: the input needs the capabilities `requireProviderCapabilities` names, checked against
//   the connection's (for `session.open` and inputs without a session) or the session's
//   `session.opened` capabilities (an unknown session is refused);
// - events: a `session.opened` may select only the connection's capabilities, a child only
//   under a parent with `session.subsession`, a plugin timeline item only with the plugin's id;
//   a violation, like an event the plugin process refused, fails the connection: every session
//   on it gets `session.runtime_failed`;
// - stop: `shutdown`, SIGTERM 2 s later, SIGKILL 2 s after that.
// It counts, per connection, the events delivered and the events refused.

import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compileServerBundle } from "./compiler.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REQUEST_TIMEOUT_MS = 30_000;
export const SOFT_SHUTDOWN_TIMEOUT_MS = 2_000;

const bundles = new Map();
/** The server bundle of `dir`, compiled once per test process. */
export function bundleOf(dir) {
  if (!bundles.has(dir)) bundles.set(dir, compileServerBundle(dir));
  return bundles.get(dir);
}

export class PaseoHost {
  constructor({ generation, pluginDir, env, cwd, withSdk = true, pluginId = "agent-bridge" }) {
    this.generation = generation;
    this.pluginDir = pluginDir;
    this.env = env;
    this.cwd = cwd;
    this.withSdk = withSdk;
    this.pluginId = pluginId;
    this.output = [];
    this.pendingRequests = new Map();
    this.connections = new Map();
    this.providers = [];
  }

  /** Loads the generation's own schemas (the daemon uses the same SDK as its plugin process). */
  async schemas() {
    this.sdk ??= await import(`./schemas-${this.generation}.mjs`);
    return this.sdk;
  }

  async start() {
    const sdk = await this.schemas();
    const bundle = await bundleOf(this.pluginDir);
    this.child = fork(path.join(here, "plugin-process.mjs"), [this.generation, this.withSdk ? "sdk" : "nosdk"], {
      serialization: "advanced",
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env: this.env,
      cwd: this.cwd,
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream.setEncoding("utf8");
      stream.on("data", (text) => this.output.push(text));
    }
    this.closed = new Promise((resolve) =>
      this.child.on("close", (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        for (const state of this.connections.values()) this.fail(state, new Error("Plugin process exited"));
        for (const pending of this.pendingRequests.values()) pending.reject(new Error("Plugin process exited"));
        resolve();
      }),
    );
    const ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`plugin did not initialize\n${this.log()}`)), REQUEST_TIMEOUT_MS);
      this.child.on("message", (message) => {
        if (message.type === "ready") {
          clearTimeout(timer);
          resolve(message);
        } else if (message.type === "fatal") {
          // Before `ready` it fails the load; after it the runtime logs it (the plugin process
          // shuts itself down).
          this.fatal = message.error;
          clearTimeout(timer);
          reject(new Error(`plugin failed to load: ${message.error}\n${this.log()}`));
        } else {
          this.onMessage(message);
        }
      });
    });
    const initialize = { type: "initialize", pluginId: this.pluginId, bundle, appVersion: sdk.PASEO_VERSION };
    // The newer plugin process reads provider icons from the plugin folder it is told.
    if (this.generation !== "0.9") initialize.pluginDirectory = this.pluginDir;
    this.child.send(initialize);
    try {
      this.providers = (await ready).providers;
    } catch (error) {
      // As the runtime's `terminatePluginChild`, the child that failed is killed (without the
      // disconnect first: Node then never emits `close` for it).
      this.child.kill();
      await this.closed;
      throw error;
    }
    return this.providers;
  }

  log() {
    return this.output.join("");
  }

  provider(id) {
    return this.providers.find((p) => p.id === id);
  }

  request(message, timeoutMs = REQUEST_TIMEOUT_MS) {
    const requestId = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingRequests.delete(requestId);
        reject(new Error(`Plugin RPC timed out: ${message.type}`));
      }, timeoutMs);
      this.pendingRequests.set(requestId, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.child.send({ ...message, requestId });
    });
  }

  /** The newer plugin process's `provider.status`. */
  status(providerId, request) {
    return this.request({ type: "provider.status", providerId, request });
  }

  /** The newer daemon's `getProviderHistory` (IPC `provider.history`), parsed as it does. */
  async history(providerId, request) {
    const sdk = await this.schemas();
    return sdk.ProviderHistoryReadResultSchema.parse(await this.request({ type: "provider.history", providerId, request }));
  }

  catalogKey(providerId, options) {
    return this.request({ type: "provider.catalog_key", providerId, options });
  }

  /** `provider.connect`; resolves with the connection handle, as the daemon's `connectProvider`. */
  async connect(providerId, request) {
    const sdk = await this.schemas();
    sdk.ProviderConnectRequestSchema.parse(request);
    if (!this.provider(providerId)) throw new Error(`Plugin does not contribute provider ${providerId}`);
    const connectionId = randomUUID();
    const state = {
      connectionId,
      request,
      capabilities: [],
      sessions: new Map(),
      listeners: new Set(),
      pendingSends: new Map(),
      closed: false,
      events: [],
      delivered: 0,
      refused: [],
      failure: null,
    };
    this.connections.set(connectionId, state);
    state.connected = new Promise((resolve, reject) => {
      state.resolveConnected = resolve;
      state.rejectConnected = reject;
    });
    state.closedPromise = new Promise((resolve) => (state.resolveClosed = resolve));
    const timer = setTimeout(
      () => this.fail(state, new Error(`Plugin provider connection timed out: ${providerId}`)),
      REQUEST_TIMEOUT_MS,
    );
    this.child.send({ type: "provider.connect", providerId, connectionId, request });
    try {
      await state.connected;
    } finally {
      clearTimeout(timer);
    }
    return new RemoteConnection(this, state, sdk);
  }

  onMessage(message) {
    if (message.type === "result" || message.type === "error") {
      const pending = this.pendingRequests.get(message.requestId);
      if (!pending) return;
      this.pendingRequests.delete(message.requestId);
      if (message.type === "result") pending.resolve(message.output);
      else pending.reject(new Error(message.error));
      return;
    }
    const state = this.connections.get(message.connectionId);
    if (!state) return;
    switch (message.type) {
      case "provider.connected":
        return this.finishConnect(state, message);
      case "provider.connect_failed":
        this.connections.delete(state.connectionId);
        state.closed = true;
        state.rejectConnected(new Error(message.error));
        state.resolveClosed();
        return;
      case "provider.accepted":
      case "provider.rejected": {
        const pending = state.pendingSends.get(message.acceptanceId);
        if (!pending) return;
        state.pendingSends.delete(message.acceptanceId);
        if (message.type === "provider.accepted") {
          if (pending.input.type === "session.open" && !state.sessions.has(pending.input.sessionId)) {
            state.sessions.set(pending.input.sessionId, []);
          }
          if (pending.input.type === "session.close") state.sessions.delete(pending.input.sessionId);
          pending.resolve();
        } else {
          pending.reject(new Error(message.error));
        }
        return;
      }
      case "provider.event":
        return this.publish(state, message.event);
      case "provider.closed":
        this.connections.delete(state.connectionId);
        if (message.refusedEvent) state.refused.push(message.refusedEvent);
        if (message.error) this.fail(state, new Error(message.error));
        else {
          state.closed = true;
          for (const pending of state.pendingSends.values()) pending.reject(new Error("Provider connection closed"));
          state.resolveClosed();
        }
        return;
    }
  }

  finishConnect(state, message) {
    const known = new Set(this.sdk.PROVIDER_CAPABILITIES);
    const problem = !Number.isInteger(message.version) || message.version < 1
      ? `Plugin provider selected invalid version: ${message.version}`
      : !state.request.versions.includes(message.version)
        ? `Plugin provider selected an unoffered version: ${message.version}`
        : message.capabilities
            .filter((c) => known.has(c) && !state.request.capabilities.includes(c))
            .map((c) => `Plugin provider selected an unoffered capability: ${c}`)[0];
    if (problem) {
      this.connections.delete(state.connectionId);
      state.closed = true;
      state.rejectConnected(new Error(problem));
      this.child.send({ type: "provider.close", connectionId: state.connectionId });
      return;
    }
    state.version = message.version;
    state.capabilities = this.sdk.PROVIDER_CAPABILITIES.filter((c) => message.capabilities.includes(c));
    state.resolveConnected();
  }

  publish(state, event) {
    const known = new Set(this.sdk.PROVIDER_CAPABILITIES);
    if (event.type === "timeline.item" && event.item.type === "plugin" && event.item.pluginId !== this.pluginId) {
      return this.failConnection(state, new Error(`Provider plugin ${this.pluginId} cannot emit timeline items for ${event.item.pluginId}`));
    }
    if (event.type === "session.opened") {
      const unoffered = event.capabilities.find((c) => known.has(c) && !state.capabilities.includes(c));
      if (unoffered) {
        return this.failConnection(state, new Error(`Provider session selected an unoffered capability: ${unoffered}`));
      }
      event = { ...event, capabilities: this.sdk.PROVIDER_CAPABILITIES.filter((c) => event.capabilities.includes(c)) };
      if (event.parentSessionId && !state.sessions.get(event.parentSessionId)?.includes("session.subsession")) {
        return this.failConnection(state, new Error("Provider parent session did not negotiate session.subsession"));
      }
      state.sessions.set(event.sessionId, event.capabilities);
    }
    state.delivered += 1;
    state.events.push(event);
    for (const listener of [...state.listeners]) listener(event);
    if (event.type === "session.closed") state.sessions.delete(event.sessionId);
  }

  failConnection(state, error) {
    this.connections.delete(state.connectionId);
    this.fail(state, error);
    if (this.child.connected) this.child.send({ type: "provider.close", connectionId: state.connectionId });
  }

  /** The runtime's `failRemoteProviderConnection`: every session of the connection fails. */
  fail(state, error) {
    if (state.closed) return;
    state.failure = error.message;
    for (const sessionId of state.sessions.keys()) {
      const event = { type: "session.runtime_failed", sessionId, error: { message: error.message } };
      state.events.push(event);
      for (const listener of [...state.listeners]) listener(event);
    }
    state.closed = true;
    state.rejectConnected?.(error);
    for (const pending of state.pendingSends.values()) pending.reject(error);
    state.pendingSends.clear();
    state.resolveClosed?.();
  }

  /**
   * Stops the plugin as the runtime's `stopPlugin` does; returns how long the process took to
   * exit after `shutdown` and how it ended.
   */
  async stop() {
    if (this.exit) return { exitedAfterMs: 0, ...this.exit };
    const since = Date.now();
    if (this.child.connected) this.child.send({ type: "shutdown" });
    let escalated = null;
    let timer = setTimeout(() => {
      escalated = "SIGTERM";
      this.child.kill("SIGTERM");
      timer = setTimeout(() => {
        escalated = "SIGKILL";
        this.child.kill("SIGKILL");
      }, SOFT_SHUTDOWN_TIMEOUT_MS);
    }, SOFT_SHUTDOWN_TIMEOUT_MS);
    await this.closed;
    clearTimeout(timer);
    return { exitedAfterMs: this.exit.at - since, escalated, code: this.exit.code, signal: this.exit.signal };
  }

  /** SIGKILL of the plugin process (a crash, the OOM killer). */
  async kill() {
    this.child.kill("SIGKILL");
    await this.closed;
  }
}

/** The `ProviderConnection` the daemon gets for a plugin provider. */
export class RemoteConnection {
  constructor(host, state, sdk) {
    this.host = host;
    this.state = state;
    this.sdk = sdk;
  }

  get capabilities() {
    return this.state.capabilities;
  }

  get events() {
    return this.state.events;
  }

  /** Events delivered (they passed the host's schema) and events the host refused. */
  get stats() {
    return { delivered: this.state.delivered, refused: this.state.refused, failure: this.state.failure };
  }

  onEvent(listener) {
    this.state.listeners.add(listener);
    return () => this.state.listeners.delete(listener);
  }

  send(input) {
    const { state } = this;
    if (state.closed) return Promise.reject(new Error(`Provider connection is closed${state.failure ? `: ${state.failure}` : ""}`));
    try {
      if (input.type === "session.open" || !("sessionId" in input)) {
        this.sdk.requireProviderCapabilities(state.capabilities, input);
      } else {
        const granted = state.sessions.get(input.sessionId);
        if (!granted) throw new Error(`Unknown provider session: ${input.sessionId}`);
        this.sdk.requireProviderCapabilities(granted, input);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const acceptanceId = randomUUID();
    return new Promise((resolve, reject) => {
      state.pendingSends.set(acceptanceId, { input, resolve, reject });
      this.host.child.send({
        type: "provider.send",
        connectionId: state.connectionId,
        acceptanceId,
        input: JSON.parse(JSON.stringify(input)),
      });
    });
  }

  async close() {
    if (this.state.closed) return;
    this.host.child.send({ type: "provider.close", connectionId: this.state.connectionId });
    await this.state.closedPromise;
  }
}
