// One running `agent-bridge serve` child: spawn, `initialize`, event routing, death and shutdown.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { JsonRpcPeer, type RequestHooks } from "./json-rpc";
import { describeError } from "./plugin-files";
import { requestTimeoutMs } from "./request-timeouts";
import type { BridgeEvent } from "./types";

const STDERR_TAIL_LINES = 20;
// Paseo SIGTERMs its plugin process 2 s after `shutdown`: the bridge (which closes its sessions
// within 1.5 s) is SIGTERMed at 1.6 s and SIGKILLed at 1.9 s, when its guards kill every CLI.
const TERM_AFTER_MS = 1600;
const KILL_AFTER_MS = 300;
/** After `exit`, how long to let stdout drain before declaring the process gone without `close`. */
const DRAIN_AFTER_EXIT_MS = 200;

export interface BridgeLaunch {
  binary: string;
  pluginDir: string;
  pluginId: string;
  dataDir: string;
  hostVersion: string;
  /** Replaces every request's default timeout (`AGENT_BRIDGE_REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs?: number | undefined;
}

export interface ConnectResult {
  connectionId: string;
  version: number;
  capabilities: string[];
}

export interface InitializeResult {
  apiVersion: number;
  bridge: { name: string; version: string };
  providers: unknown[];
}

/** What a connection needs from the bridge it lives on. */
export interface ConnectionSink {
  deliver(event: BridgeEvent): void;
  /** The bridge died without being asked to; `message` says how. */
  bridgeDied(message: string): void;
  /** The bridge is being shut down on purpose: refuse new work, keep delivering its events. */
  bridgeStopped(): void;
}

export class BridgeProcess {
  readonly ready: Promise<InitializeResult>;
  readonly exited: Promise<void>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly peer: JsonRpcPeer;
  private readonly connections = new Map<string, ConnectionSink>();
  private readonly stderrTail: string[] = [];
  private stderrPartial = "";
  private stopping: Promise<void> | null = null;
  private spawnError: Error | null = null;
  private exitedFlag = false;
  private resolveExited!: () => void;

  constructor(
    private readonly launch: BridgeLaunch,
    private readonly onUnexpectedExit: (bridge: BridgeProcess, message: string) => void,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    this.child = spawn(launch.binary, ["serve"], {
      cwd: launch.pluginDir,
      env: process.env,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    this.peer = new JsonRpcPeer(
      this.child.stdout,
      this.child.stdin,
      {
        onNotification: (method, params) => this.onNotification(method, params),
        log: (message) => console.error(`[agent-bridge] ${message}`),
      },
      {
        timeoutFor: (method, params) =>
          requestTimeoutMs(method, params, launch.requestTimeoutMs),
      },
    );
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (text: string) => this.onStderr(text));
    this.child.on("error", (error) => this.onSpawnError(error));
    // `close` waits for stdio to close, which a grandchild holding the pipes can delay: after
    // `exit`, give stdout a moment to drain, then treat the process as gone anyway.
    this.child.on("exit", (code, signal) => {
      setTimeout(() => this.onClose(code, signal), DRAIN_AFTER_EXIT_MS).unref();
    });
    this.child.on("close", (code, signal) => this.onClose(code, signal));
    if (this.child.pid !== undefined) {
      console.error(`[agent-bridge] started ${launch.binary} serve (pid ${this.child.pid})`);
    }
    this.ready = this.peer
      .request("initialize", {
        apiVersion: 1,
        host: { name: "paseo", version: launch.hostVersion },
        plugin: { id: launch.pluginId, dir: launch.pluginDir, dataDir: launch.dataDir },
      })
      .then((result) => result as InitializeResult);
    // Callers observe failures through `ready`; never leave it unhandled.
    this.ready.catch(() => undefined);
  }

  get alive(): boolean {
    return !this.exitedFlag && this.stopping === null;
  }

  request(method: string, params: unknown): Promise<unknown> {
    return this.peer.request(method, params);
  }

  /**
   * `provider/connect`. The connection's sink is registered the moment the answer is read, so
   * no event for it can arrive unrouted. A connection answered after the request timed out has
   * no user: it is closed. With a `deadline` (epoch ms: the end of the connect's budget) the
   * request's timeout is the method's or what is left until then, whichever is shorter.
   */
  connect<Sink extends ConnectionSink>(
    params: unknown,
    createSink: (result: ConnectResult) => Sink,
    deadline?: number,
  ): Promise<Sink> {
    const hooks: RequestHooks = {
      onResult: (result) => {
        const connected = result as ConnectResult;
        const sink = createSink(connected);
        this.connections.set(connected.connectionId, sink);
        if (this.stopping) sink.bridgeStopped();
        return sink;
      },
      onLateResult: (result) => {
        const connectionId = (result as Partial<ConnectResult> | null)?.connectionId;
        if (typeof connectionId !== "string" || !this.alive) return;
        this.peer.request("provider/close", { connectionId }).catch((error: unknown) => {
          const why = describeError(error);
          console.error(`[agent-bridge] closing late connection ${connectionId}: ${why}`);
        });
      },
    };
    if (deadline !== undefined) {
      const own = requestTimeoutMs("provider/connect", params, this.launch.requestTimeoutMs);
      hooks.timeoutMs = Math.max(1, Math.min(own, deadline - Date.now()));
    }
    return this.peer.request("provider/connect", params, hooks) as Promise<Sink>;
  }

  detach(connectionId: string): void {
    this.connections.delete(connectionId);
  }

  /** `shutdown`, close stdin, SIGTERM after 1.6 s, SIGKILL 0.3 s later; resolves once it is gone. */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    for (const sink of this.connections.values()) sink.bridgeStopped();
    this.stopping = this.exitedFlag ? Promise.resolve() : this.escalate();
    return this.stopping;
  }

  private async escalate(): Promise<void> {
    this.peer.notify("shutdown", {});
    this.child.stdin.end();
    if (await this.exitWithin(TERM_AFTER_MS)) return;
    this.child.kill("SIGTERM");
    if (await this.exitWithin(KILL_AFTER_MS)) return;
    this.child.kill("SIGKILL");
    await this.exited;
  }

  private exitWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== "provider/event") {
      console.error(`[agent-bridge] ignored notification ${method}`);
      return;
    }
    const { connectionId, event } = (params ?? {}) as { connectionId?: unknown; event?: unknown };
    if (typeof connectionId !== "string" || !event || typeof event !== "object") {
      console.error("[agent-bridge] ignored malformed provider/event");
      return;
    }
    const sink = this.connections.get(connectionId);
    if (sink) sink.deliver(event as BridgeEvent);
    else console.error(`[agent-bridge] dropped an event for unknown connection ${connectionId}`);
  }

  private onStderr(text: string): void {
    const lines = (this.stderrPartial + text).split("\n");
    this.stderrPartial = lines.pop() ?? "";
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      console.error(`[agent-bridge] ${line}`);
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    }
  }

  private onSpawnError(error: Error): void {
    this.spawnError ??= error;
    console.error(`[agent-bridge] cannot run ${this.launch.binary}: ${describeError(error)}`);
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitedFlag) return;
    if (this.stderrPartial) this.onStderr("\n");
    this.exitedFlag = true;
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    const expected = this.stopping !== null;
    let message = `agent-bridge exited unexpectedly (${how})`;
    if (this.spawnError) {
      message =
        `agent-bridge could not start: cannot run ${this.launch.binary}: ` +
        `${describeError(this.spawnError)} (build it with \`sh scripts/prepare.sh\` in the plugin ` +
        `folder, or point AGENT_BRIDGE_BIN at a built binary)`;
    } else if (this.stderrTail.length > 0) {
      message += `; last stderr:\n${this.stderrTail.slice(-10).join("\n")}`;
    }
    this.peer.fail(new Error(expected ? `agent-bridge stopped (${how})` : message));
    const sinks = [...this.connections.values()];
    this.connections.clear();
    if (!expected) {
      console.error(`[agent-bridge] ${message}`);
      for (const sink of sinks) sink.bridgeDied(message);
      this.onUnexpectedExit(this, message);
    }
    this.resolveExited();
  }
}
