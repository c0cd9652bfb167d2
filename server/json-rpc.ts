// JSON-RPC 2.0 over newline-delimited JSON (docs/wire.md, "Transport").
//
// One peer per bridge process: requests from the host are numbered 1, 2, 3, ... (the bridge
// numbers its own direction separately); stdout is read line by line and a line that is not a
// JSON-RPC object is logged and ignored. A line over the transport limit is refused before it is
// written, and every request is rejected once its timeout runs out (a late answer is ignored).

import { StringDecoder } from "node:string_decoder";
import type { Readable, Writable } from "node:stream";
import { LineTooLongError, MAX_LINE_BYTES, lineBytes } from "./line-limit";
import { RequestTimeoutError, requestTimeoutMs } from "./request-timeouts";

/** An error answer from the bridge; `message` is the bridge's own text. */
export class BridgeRpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(message: string, code: number, data?: unknown) {
    super(message);
    this.name = "BridgeRpcError";
    this.code = code;
    this.data = data;
  }
}

export interface RequestHooks {
  /** Maps the result as soon as the answer is read, before the next line is handled. */
  onResult?: (result: unknown) => unknown;
  /** Gets the result of an answer that arrives after the request timed out (e.g. to undo it). */
  onLateResult?: (result: unknown) => void;
  /** This request's timeout in ms, instead of the method's. */
  timeoutMs?: number;
}

interface Pending extends RequestHooks {
  method: string;
  timeoutMs: number;
  timer: ReturnType<typeof setTimeout>;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface TimedOut {
  method: string;
  timeoutMs: number;
  onLateResult: RequestHooks["onLateResult"] | undefined;
}

/** How many timed-out ids are remembered, to recognise their late answers. */
const TIMED_OUT_MEMORY = 256;

export interface JsonRpcHandlers {
  onNotification(method: string, params: unknown): void;
  log(message: string): void;
}

export interface JsonRpcOptions {
  /** The timeout of one request, in ms (default: `requestTimeoutMs`). */
  timeoutFor?: (method: string, params: unknown) => number;
}

type Message = {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
};

export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly timedOut = new Map<number, TimedOut>();
  private readonly decoder = new StringDecoder("utf8");
  private readonly timeoutFor: (method: string, params: unknown) => number;
  private buffered = "";
  private failure: Error | null = null;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: JsonRpcHandlers,
    options: JsonRpcOptions = {},
  ) {
    this.timeoutFor = options.timeoutFor ?? ((method, params) => requestTimeoutMs(method, params));
    input.on("data", (chunk: Buffer | string) => this.receive(chunk));
    input.on("end", () => this.receive(this.decoder.end(), true));
    // A write after the bridge died fails with EPIPE; the exit handler reports the death.
    output.on("error", (error) => this.handlers.log(`bridge stdin: ${error.message}`));
  }

  /** Requests sent and neither answered, timed out nor failed yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends a request. Rejects at once, writing nothing, when its line is over the transport
   * limit; rejects with a `RequestTimeoutError` when no answer comes in time.
   */
  request(method: string, params: unknown, hooks: RequestHooks = {}): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId;
    let line: string;
    try {
      line = serialize({ jsonrpc: "2.0", id, method, params }, method);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    this.nextId += 1;
    const timeoutMs = hooks.timeoutMs ?? this.timeoutFor(method, params);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.expire(id), timeoutMs);
      // A pending request alone must not keep Paseo's plugin process alive.
      timer.unref?.();
      this.pending.set(id, { ...hooks, method, timeoutMs, timer, resolve, reject });
      this.write(line);
    });
  }

  notify(method: string, params: unknown): void {
    if (this.failure) return;
    try {
      this.write(serialize({ jsonrpc: "2.0", method, params }, method));
    } catch (error) {
      this.handlers.log(`notification not sent: ${asError(error).message}`);
    }
  }

  /** Rejects every pending request and all later ones with `error`. */
  fail(error: Error): void {
    if (!this.failure) this.failure = error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
  }

  private expire(id: number): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    const { method, timeoutMs, onLateResult } = entry;
    this.timedOut.set(id, { method, timeoutMs, onLateResult });
    if (this.timedOut.size > TIMED_OUT_MEMORY) {
      this.timedOut.delete(this.timedOut.keys().next().value as number);
    }
    this.handlers.log(`${method} (id ${id}) got no answer within ${timeoutMs} ms; gave up on it`);
    entry.reject(new RequestTimeoutError(method, timeoutMs));
  }

  private write(line: string): void {
    if (this.output.destroyed || this.output.writableEnded) return;
    this.output.write(line);
  }

  private receive(chunk: Buffer | string, ended = false): void {
    this.buffered += typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    let newline = this.buffered.indexOf("\n");
    while (newline !== -1) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      this.handleLine(line);
      newline = this.buffered.indexOf("\n");
    }
    if (ended && this.buffered !== "") {
      const rest = this.buffered;
      this.buffered = "";
      this.handleLine(rest);
    }
  }

  private handleLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      this.handlers.log(`ignored non-JSON line on bridge stdout: ${truncate(line)}`);
      return;
    }
    if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") {
      this.handlers.log(`ignored non-JSON-RPC line on bridge stdout: ${truncate(line)}`);
      return;
    }
    if (typeof message.method === "string") {
      if (message.id === undefined || message.id === null) {
        this.handlers.onNotification(message.method, message.params);
      } else {
        // The contract has no bridge -> host requests; answer so the bridge is never left waiting.
        const error = { code: -32601, message: `unknown method: ${message.method}` };
        this.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, error })}\n`);
      }
      return;
    }
    this.settle(message, line);
  }

  private settle(message: Message, line: string): void {
    const id = typeof message.id === "number" ? message.id : undefined;
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !entry) {
      this.unmatched(message, id, line);
      return;
    }
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (message.error) {
      const { code, message: text, data } = message.error;
      entry.reject(
        new BridgeRpcError(
          typeof text === "string" && text ? text : `${entry.method} failed`,
          typeof code === "number" ? code : -32603,
          data,
        ),
      );
    } else {
      const result = message.result === undefined ? null : message.result;
      try {
        entry.resolve(entry.onResult ? entry.onResult(result) : result);
      } catch (error) {
        entry.reject(asError(error));
      }
    }
  }

  /** An answer no pending request waits for: logged, never fatal. */
  private unmatched(message: Message, id: number | undefined, line: string): void {
    const late = id === undefined ? undefined : this.timedOut.get(id);
    if (id !== undefined && late) {
      this.timedOut.delete(id);
      this.handlers.log(
        `ignored a late answer to ${late.method} (id ${id}), which timed out after ` +
          `${late.timeoutMs} ms: ${truncate(line)}`,
      );
      if (message.error || !late.onLateResult) return;
      try {
        late.onLateResult(message.result === undefined ? null : message.result);
      } catch (error) {
        const why = asError(error).message;
        this.handlers.log(`handling the late answer to ${late.method} failed: ${why}`);
      }
      return;
    }
    if (message.id === null) {
      // `-32700` / `-32600`: the bridge could not read a line; it cannot say which request it
      // was, so that request (if any) is left to its timeout.
      const { code, message: text } = message.error ?? {};
      this.handlers.log(
        `the bridge could not read a line (error ${String(code)}: ${String(text)}); ` +
          `a request on it fails at its timeout: ${truncate(line)}`,
      );
      return;
    }
    this.handlers.log(`bridge answer without a pending request: ${truncate(line)}`);
  }
}

/** One JSON-RPC line, newline included; throws `LineTooLongError` over the transport limit. */
function serialize(message: object, method: string): string {
  const line = `${JSON.stringify(message)}\n`;
  const bytes = lineBytes(line);
  if (bytes > MAX_LINE_BYTES) throw new LineTooLongError(method, bytes);
  return line;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function truncate(line: string, max = 500): string {
  return line.length > max ? `${line.slice(0, max)}… (${line.length} chars)` : line;
}
