// The transport's line limit (docs/wire.md, "Transport"): a line longer than 16 MiB is
// discarded by the bridge, which can then only answer `id: null` — the request it carried would
// never be answered. The adapter measures every line it is about to write and refuses one over
// the limit instead of sending it.

/** 16 MiB, the newline included, counted in UTF-8 bytes as written. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** An outgoing line over `MAX_LINE_BYTES`; nothing of it was written. */
export class LineTooLongError extends Error {
  readonly bytes: number;
  readonly limit: number;
  readonly method: string;

  constructor(method: string, bytes: number, limit = MAX_LINE_BYTES) {
    super(
      `${method} not sent: its JSON-RPC line is ${formatBytes(bytes)}, over the ` +
        `${formatBytes(limit)} limit of the agent-bridge transport`,
    );
    this.name = "LineTooLongError";
    this.bytes = bytes;
    this.limit = limit;
    this.method = method;
  }
}

/** Size in UTF-8 bytes of `line` as it would be written. */
export function lineBytes(line: string): number {
  return Buffer.byteLength(line, "utf8");
}

/** `17.0 MiB (17825792 bytes)`. */
export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  const rounded = Number.isInteger(mib) ? String(mib) : mib.toFixed(1);
  return `${rounded} MiB (${bytes} bytes)`;
}
