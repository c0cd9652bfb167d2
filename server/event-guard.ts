// The event guard: inside Paseo, every event is checked with Paseo's own schema before it is
// emitted, because Paseo's plugin process parses each event with `ProviderEventSchema` and one
// that fails closes the whole connection and fails every session on it.
//
// Paseo's runtime `require` serves its SDK (`@getpaseo/plugin/server/provider`, which exports
// `ProviderEventSchema`); elsewhere (tests, other hosts) the module does not resolve and the
// guard passes every event through. An event the host would refuse is
// - repaired when the repair is certain: a `session.config` without the legacy `settings`
//   array that Paseo 0.9 requires gets `settings: []`;
// - else replaced by what keeps the session alive: a warning `session.notice` naming the field
//   (and, for a turn event, the turn failed; for a prompt result, the prompt failed; for an
//   answer to a request without a session, `request.failed`);
// with a warning on stderr naming the event and the field.
//
// On a Paseo whose schema knows composer `controls`, an empty `settings` is left out of
// `session.config`, so that Paseo sees a plugin reporting `controls` and `providerOptions` only
// (it treats a plugin still reporting `settings` as legacy, which cannot refuse a live key).

import type { BridgeEvent, ProviderError, ProviderEvent, ProviderTimelineItem } from "./types";

/** One zod issue; a union's carries the issues of each of its branches. */
export interface SchemaIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  errors?: ReadonlyArray<ReadonlyArray<SchemaIssue>>;
}

/** The part of a zod schema the guard uses (zod 4's `safeParse`). */
export interface EventSchema {
  safeParse(value: unknown):
    | { success: true; data: unknown }
    | { success: false; error: { issues: ReadonlyArray<SchemaIssue> } };
}

/** What the host's SDK tells the guard. */
export interface HostSchema {
  events: EventSchema;
  /** The host's `session.config` takes `controls` + `providerOptions` without `settings`. */
  knowsControls: boolean;
}

const SDK_PROVIDER_MODULE = "@getpaseo/plugin/server/provider";

function isEventSchema(value: unknown): value is EventSchema {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** Whether the host's schema takes a `session.config` in the newest style and keeps `controls`. */
function knowsControls(events: EventSchema): boolean {
  const probe = events.safeParse({
    type: "session.config",
    sessionId: "agent-bridge-probe",
    config: { models: [], modes: [], thinkingOptions: [], controls: [], providerOptions: {} },
  });
  if (!probe.success) return false;
  const config = (probe.data as { config?: { controls?: unknown } } | null)?.config;
  return Array.isArray(config?.controls);
}

/** The host's event schema, from the SDK Paseo's runtime `require` serves; null elsewhere. */
export function loadHostSchema(): HostSchema | null {
  let sdk: unknown;
  try {
    // A literal specifier, left external by Paseo's compiler and served by its runtime require.
    sdk = require("@getpaseo/plugin/server/provider");
  } catch {
    return null;
  }
  const events = (sdk as { ProviderEventSchema?: unknown } | null)?.ProviderEventSchema;
  if (!isEventSchema(events)) {
    console.error(
      `[agent-bridge] ${SDK_PROVIDER_MODULE} has no ProviderEventSchema; events are not checked`,
    );
    return null;
  }
  return { events, knowsControls: knowsControls(events) };
}

/** One problem of an event: where and what. */
interface Problem {
  path: string;
  message: string;
}

/**
 * The issue that names the field: inside a union, the branch that came closest (fewest issues,
 * then the deepest), e.g. `item.status` of a tool call rather than "item: Invalid input".
 */
function innermost(issue: SchemaIssue, prefix: readonly PropertyKey[]): { path: PropertyKey[]; message: string } {
  const path = [...prefix, ...issue.path];
  const branches = (issue.errors ?? []).filter((branch) => branch.length > 0);
  if (issue.code !== "invalid_union" || branches.length === 0) return { path, message: issue.message };
  const depth = (branch: ReadonlyArray<SchemaIssue>) => Math.max(...branch.map((i) => i.path.length));
  const best = [...branches].sort((a, b) => a.length - b.length || depth(b) - depth(a))[0];
  const first = best?.[0];
  return first ? innermost(first, path) : { path, message: issue.message };
}

function firstProblem(result: ReturnType<EventSchema["safeParse"]>): Problem | null {
  if (result.success) return null;
  const issue = result.error.issues[0];
  if (!issue) return { path: "(event)", message: "refused" };
  const found = innermost(issue, []);
  const path = found.path.map((part) => String(part)).join(".");
  return { path: path || "(event)", message: found.message };
}

/** A JSON copy, as Paseo's plugin process sends events (undefined values dropped). */
function transported(event: BridgeEvent): BridgeEvent {
  return JSON.parse(JSON.stringify(event)) as BridgeEvent;
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

export class EventGuard {
  private notices = 0;

  constructor(
    private readonly host: HostSchema | null,
    private readonly warn: (message: string) => void = (message) =>
      console.error(`[agent-bridge] ${message}`),
  ) {}

  /** Whether events are checked (the host's SDK was found). */
  get active(): boolean {
    return this.host !== null;
  }

  /**
   * The events to emit for `event`: itself, repaired, or what replaces it. Without the host's
   * schema the bridge's event is passed on as it is (the bridge guarantees Paseo's schema;
   * inside Paseo every event emitted here passed Paseo's own).
   */
  check(event: BridgeEvent): ProviderEvent[] {
    const host = this.host;
    if (!host) return [event as ProviderEvent];
    const candidate = transported(this.normalize(event, host));
    const problem = firstProblem(host.events.safeParse(candidate));
    if (!problem) return [candidate as ProviderEvent];
    const repaired = this.repair(candidate, host);
    if (repaired) {
      this.warn(
        `Paseo would refuse ${describe(candidate)} (${problem.path}: ${problem.message}); ` +
          "repaired: added the legacy settings: []",
      );
      return [repaired];
    }
    const replacement = this.replace(candidate, problem).filter(
      (e) => host.events.safeParse(e).success,
    );
    const what = replacement.map((e) => e.type).join(" + ") || "nothing (dropped)";
    this.warn(
      `Paseo would refuse ${describe(candidate)} (${problem.path}: ${problem.message}); ` +
        `sent ${what} instead`,
    );
    return replacement;
  }

  /**
   * The rows of a history read that the host's schema takes (checked as the `timeline.item`
   * events a replay would send): a row it would refuse is left out and logged, so one bad row
   * does not fail the whole read.
   */
  items(items: readonly unknown[]): ProviderTimelineItem[] {
    const host = this.host;
    if (!host) return items as ProviderTimelineItem[];
    const kept: ProviderTimelineItem[] = [];
    for (const item of items) {
      const event = transported({ type: "timeline.item", sessionId: "history", item });
      const problem = firstProblem(host.events.safeParse(event));
      if (!problem) {
        kept.push(event.item as ProviderTimelineItem);
        continue;
      }
      this.warn(
        `Paseo would refuse a history row ${describe(event)} (${problem.path}: ${problem.message}); left it out`,
      );
    }
    return kept;
  }

  /** A newer host gets `session.config` without an empty legacy `settings`. */
  private normalize(event: BridgeEvent, host: HostSchema): BridgeEvent {
    if (!host.knowsControls || event.type !== "session.config") return event;
    const config = event.config as Record<string, unknown> | undefined;
    if (!config || !Array.isArray(config.settings) || config.settings.length > 0) return event;
    if (!Array.isArray(config.controls) || typeof config.providerOptions !== "object") return event;
    const rest: Record<string, unknown> = { ...config };
    delete rest.settings;
    return { ...event, config: rest };
  }

  /** The certain repair: a missing legacy `settings` array. */
  private repair(event: BridgeEvent, host: HostSchema): ProviderEvent | null {
    if (event.type !== "session.config") return null;
    const config = event.config as Record<string, unknown> | undefined;
    if (!config || typeof config !== "object" || config.settings !== undefined) return null;
    const repaired = { ...event, config: { ...config, settings: [] } };
    return host.events.safeParse(repaired).success ? (repaired as ProviderEvent) : null;
  }

  /** What keeps the session (or the request) alive instead of a refused event. */
  private replace(event: BridgeEvent, problem: Problem): ProviderEvent[] {
    const error: ProviderError = {
      message: `agent-bridge held back a ${describe(event)} Paseo would refuse: ${problem.path}: ${problem.message}`,
      code: "invalid_event",
    };
    // The answer to a request: the request fails (it is answered, the host does not wait).
    if (ANSWERS.has(event.type) && nonEmptyString(event.requestId)) {
      return [{ type: "request.failed", requestId: event.requestId, error }];
    }
    const sessionId = event.sessionId;
    if (!nonEmptyString(sessionId)) return [];
    this.notices += 1;
    const notice: ProviderEvent = {
      type: "session.notice",
      sessionId,
      notice: {
        id: `agent-bridge-refused-event-${this.notices}`,
        severity: "warning",
        title: "agent-bridge held back an event Paseo would refuse",
        description: `${describe(event)}: ${problem.path}: ${problem.message}`.slice(0, 2000),
      },
    };
    if (event.type === "session.turn" && nonEmptyString(event.turnId)) {
      return [notice, { type: "session.turn", sessionId, turnId: event.turnId, state: "failed", error }];
    }
    if (event.type === "session.prompt_result" && nonEmptyString(event.clientMessageId)) {
      const failed: ProviderEvent = {
        type: "session.prompt_result",
        sessionId,
        clientMessageId: event.clientMessageId,
        result: { type: "failed", error },
      };
      return [notice, failed];
    }
    return [notice];
  }
}

/** Events that answer a request (by its `requestId`). */
const ANSWERS = new Set([
  "catalog",
  "sessions",
  "request.completed",
  "request.failed",
  "session.opened",
  "session.ready",
  "session.can_stop_runtime",
]);

/** `timeline.item (tool_call)`, `session.config`, ... */
function describe(event: BridgeEvent): string {
  const item = event.item as { type?: unknown } | undefined;
  if (event.type === "timeline.item" && typeof item?.type === "string") {
    return `timeline.item (${item.type})`;
  }
  return String(event.type);
}
