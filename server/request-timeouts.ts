// How long the adapter waits for the bridge to answer each request: the one place to tune them.
//
// A timeout is a safety net for a bridge that stopped answering (or could not read a line),
// not a deadline for the work: every method below is answered by the bridge well inside it.
// Catalog, session list, open, prompt ... are `provider/send` inputs: the bridge answers once it
// admits them and reports their results as events, so they share `provider/send`'s timeout.

/**
 * Per-method defaults, in ms. A first `connect` waits for `initialize` and `provider/connect`:
 * together they stay under the 30 s Paseo gives a plugin provider to connect, so the adapter's
 * message (naming the method) is the one the user sees.
 */
export const REQUEST_TIMEOUTS_MS: Readonly<Record<string, number>> = {
  // Counted from the spawn: the bridge starts, reads plugin.json and answers at once.
  initialize: 10_000,
  // Answered at once (no CLI is started by `provider/connect`).
  "provider/connect": 10_000,
  // Admission only; the bridge reads its stdin in order, so allow for a large line ahead of it.
  "provider/send": 15_000,
  // The bridge gives a session 3.1 s to close (stdin, SIGTERM after 1.5 s, SIGKILL 1.5 s later).
  "provider/close": 10_000,
  // May read the agent's configuration.
  "provider/catalogCacheKey": 15_000,
  // Without Paseo's `timeoutMs`: the bridge's own 10 s probe limit plus the grace below.
  "provider/availability": 15_000,
  // Paseo waits 30 s for `provider.history` (runtime.ts@743b27cd); the bridge's read is
  // bounded at 25 s (its processes are gone by then).
  "provider/readSessionHistory": 27_000,
};

/**
 * Paseo's plugin runtime gives a provider connect 30 s (`REQUEST_TIMEOUT_MS` in
 * `packages/server/src/server/plugins/runtime.ts@743b27cd`): the whole `connect()` (bridge
 * start, availability probe, `provider/connect`) fits in this budget, 5 s under it.
 */
export const CONNECT_BUDGET_MS = 25_000;
/** Kept for `provider/connect` out of the budget when the probe's window is set. */
export const CONNECT_RESERVE_MS = 5_000;
/**
 * Longest `connect()` waits for the availability probe: under the bridge's own 10 s probe
 * limit, so only a real answer (missing, not logged in ...) fails a connect.
 */
export const CONNECT_PROBE_MAX_MS = 8_000;

/** For a method not listed above. */
export const FALLBACK_TIMEOUT_MS = 30_000;

/** `provider/availability` with Paseo's `timeoutMs`: the bridge answers by then; this more. */
export const AVAILABILITY_GRACE_MS = 5_000;

/** The longest delay `setTimeout` takes as given (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Replaces every default when set to a positive number of ms (slow machines, tests). */
export const TIMEOUT_ENV = "AGENT_BRIDGE_REQUEST_TIMEOUT_MS";

/** A request the bridge did not answer in time; its pending entry is gone. */
export class RequestTimeoutError extends Error {
  readonly method: string;
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super(`agent-bridge did not answer ${method} within ${timeoutMs} ms`);
    this.name = "RequestTimeoutError";
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The timeout of one request: `override` when given, else the method's default. */
export function requestTimeoutMs(method: string, params: unknown, override?: number): number {
  return Math.min(override ?? defaultTimeoutMs(method, params), MAX_TIMER_MS);
}

function defaultTimeoutMs(method: string, params: unknown): number {
  if (method === "provider/availability") {
    const asked = (params as { timeoutMs?: unknown } | null)?.timeoutMs;
    if (typeof asked === "number" && Number.isFinite(asked) && asked > 0) {
      return asked + AVAILABILITY_GRACE_MS;
    }
  }
  return REQUEST_TIMEOUTS_MS[method] ?? FALLBACK_TIMEOUT_MS;
}

/** `AGENT_BRIDGE_REQUEST_TIMEOUT_MS`, or undefined when unset or not a positive number. */
export function timeoutOverride(
  env: Record<string, string | undefined> = process.env,
): number | undefined {
  const raw = env[TIMEOUT_ENV];
  if (raw === undefined || raw === "") return undefined;
  const ms = Number(raw);
  if (Number.isFinite(ms) && ms > 0) return ms;
  console.error(`[agent-bridge] ignored ${TIMEOUT_ENV}=${raw}: not a positive number of ms`);
  return undefined;
}
