// A Paseo `ProviderConnection` backed by one `provider/connect` connection of a shared bridge.

import type { BridgeProcess, ConnectionSink } from "./bridge-process";
import { EventGuard } from "./event-guard";
import { LineTooLongError, formatBytes } from "./line-limit";
import type { BridgeEvent, ProviderConnection, ProviderEvent, ProviderInput } from "./types";

type State = "open" | "closed" | "dead";

export class BridgeConnection implements ProviderConnection, ConnectionSink {
  readonly version: number;
  readonly capabilities: string[];
  private readonly listeners = new Set<(event: ProviderEvent) => void>();
  /** Open sessions, each with its started-but-unfinished turns. */
  private readonly sessions = new Map<string, Set<string>>();
  /** Prompts without a `session.prompt_result` yet: `sessionId` -> `clientMessageId` -> admitted. */
  private readonly awaitingResult = new Map<string, Map<string, boolean>>();
  private state: State = "open";
  private deathMessage = "";
  private closing: Promise<void> | null = null;

  constructor(
    private readonly bridge: BridgeProcess,
    readonly connectionId: string,
    version: number,
    capabilities: string[],
    private readonly guard: EventGuard = new EventGuard(null),
  ) {
    this.version = version;
    this.capabilities = [...capabilities];
  }

  async send(input: ProviderInput): Promise<void> {
    this.assertUsable();
    // Noted before sending: the result event can be read before the answer to `provider/send`.
    const prompt = promptKey(input);
    if (prompt) this.waitingFor(prompt.sessionId).set(prompt.clientMessageId, false);
    try {
      await this.bridge.request("provider/send", { connectionId: this.connectionId, input });
    } catch (error) {
      if (prompt) this.forget(prompt.sessionId, prompt.clientMessageId);
      throw error instanceof LineTooLongError ? tooLarge(input, error) : error;
    }
    const waiting = prompt && this.awaitingResult.get(prompt.sessionId);
    if (waiting && waiting.has(prompt.clientMessageId)) waiting.set(prompt.clientMessageId, true);
  }

  onEvent(listener: (event: ProviderEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  close(): Promise<void> {
    if (this.state !== "open") return Promise.resolve();
    this.closing ??= this.bridge
      .request("provider/close", { connectionId: this.connectionId })
      .then(
        () => this.finish("closed"),
        (error: unknown) => {
          // A bridge that died or stopped meanwhile has already closed everything.
          if (this.state !== "open") return;
          this.finish("closed");
          throw error;
        },
      );
    return this.closing;
  }

  deliver(event: BridgeEvent): void {
    // Inside Paseo, each event is checked with Paseo's own schema first (event-guard.ts).
    for (const checked of this.guard.check(event)) {
      this.track(checked);
      this.emit(checked);
    }
  }

  bridgeDied(message: string): void {
    if (this.state !== "open") return;
    this.state = "dead";
    this.deathMessage = message;
    const error = { message };
    for (const [sessionId, turns] of this.sessions) {
      for (const [clientMessageId, admitted] of this.awaitingResult.get(sessionId) ?? []) {
        if (!admitted) continue;
        this.emit({
          type: "session.prompt_result",
          sessionId,
          clientMessageId,
          result: { type: "failed", error },
        });
      }
      for (const turnId of turns) {
        this.emit({ type: "session.turn", sessionId, turnId, state: "failed", error });
      }
      this.emit({ type: "session.runtime_failed", sessionId, error });
    }
    this.sessions.clear();
    this.awaitingResult.clear();
  }

  bridgeStopped(): void {
    // No new work; events the bridge emits while it winds down still reach the listeners.
    if (this.state !== "open") return;
    this.state = "closed";
    this.sessions.clear();
    this.awaitingResult.clear();
  }

  private assertUsable(): void {
    if (this.state === "dead") {
      throw new Error(
        `agent-bridge connection is gone: ${summary(this.deathMessage)}; open a new connection`,
      );
    }
    if (this.state === "closed" || this.closing) {
      throw new Error("agent-bridge connection is closed");
    }
  }

  private finish(state: State): void {
    this.state = state;
    this.sessions.clear();
    this.awaitingResult.clear();
    this.bridge.detach(this.connectionId);
  }

  private waitingFor(sessionId: string): Map<string, boolean> {
    let waiting = this.awaitingResult.get(sessionId);
    if (!waiting) {
      waiting = new Map();
      this.awaitingResult.set(sessionId, waiting);
    }
    return waiting;
  }

  private forget(sessionId: string, clientMessageId: string): void {
    const waiting = this.awaitingResult.get(sessionId);
    waiting?.delete(clientMessageId);
    if (waiting?.size === 0) this.awaitingResult.delete(sessionId);
  }

  private track(event: ProviderEvent): void {
    switch (event.type) {
      case "session.opened":
        if (!this.sessions.has(event.sessionId)) this.sessions.set(event.sessionId, new Set());
        break;
      case "session.closed":
      case "session.runtime_failed":
        this.sessions.delete(event.sessionId);
        this.awaitingResult.delete(event.sessionId);
        break;
      case "session.turn": {
        const turns = this.sessions.get(event.sessionId);
        if (!turns) break;
        if (event.state === "started") turns.add(event.turnId);
        else turns.delete(event.turnId);
        break;
      }
      case "session.prompt_result":
        this.forget(event.sessionId, event.clientMessageId);
        break;
      default:
        break;
    }
  }

  private emit(event: ProviderEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        console.error("[agent-bridge] event listener threw:", error);
      }
    }
  }
}

/** `sessionId` and `clientMessageId` of a `session.prompt` input. */
function promptKey(input: ProviderInput): { sessionId: string; clientMessageId: string } | null {
  if (input.type !== "session.prompt" || typeof input.sessionId !== "string") return null;
  const clientMessageId = (input as { prompt?: { clientMessageId?: unknown } }).prompt
    ?.clientMessageId;
  return typeof clientMessageId === "string"
    ? { sessionId: input.sessionId, clientMessageId }
    : null;
}

/** What Paseo shows when an input cannot be sent at all (it reaches the user as a refused send). */
function tooLarge(input: ProviderInput, error: LineTooLongError): Error {
  const what = input.type === "session.prompt" ? "This prompt" : `This ${input.type} input`;
  return new Error(
    `${what} is too large for agent-bridge: ${formatBytes(error.bytes)} as sent, over the ` +
      `${formatBytes(error.limit)} limit of its stdio transport. Nothing was sent; ` +
      "attach smaller images or files, or fewer of them.",
    { cause: error },
  );
}

/** The death message without its stderr tail. */
function summary(message: string): string {
  return message.split("; last stderr:")[0] ?? message;
}
