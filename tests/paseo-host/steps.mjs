// The session steps the emulator's tests take through a connection, as Paseo's daemon sends
// them: a request-style input and its answer, a prompt, a turn's end, an open.

import assert from "node:assert/strict";
import { waitEvent } from "./harness.mjs";

/** How long one step may take (a real CLI on a loaded machine). */
export const STEP_MS = 120_000;

let counter = 0;
/** A fresh request id. */
export const rid = (what) => `${what}-${++counter}`;

/** Sends a request-style input and waits for its answer. */
export async function ask(connection, input, label = input.type) {
  const answered = waitEvent(
    connection,
    (e) => e.requestId === input.requestId && e.type !== "session.opened" && e.type !== "session.config",
    `the answer to ${label}`,
    STEP_MS,
  );
  await connection.send(input);
  return answered;
}

export function prompt(sessionId, clientMessageId, text) {
  return {
    type: "session.prompt",
    sessionId,
    prompt: { clientMessageId, delivery: "auto", input: { type: "message", content: [{ type: "text", text }] } },
  };
}

/** Starts a turn; resolves with its turn id once started. */
export async function startTurn(connection, sessionId, text) {
  const clientMessageId = rid("m");
  const result = waitEvent(
    connection,
    (e) => e.type === "session.prompt_result" && e.clientMessageId === clientMessageId,
    `the prompt result of "${text}"`,
    STEP_MS,
  );
  await connection.send(prompt(sessionId, clientMessageId, text));
  const answer = await result;
  assert.equal(answer.result.type, "turn", JSON.stringify(answer));
  return answer.result.turnId;
}

export function turnEnd(connection, sessionId, turnId) {
  return waitEvent(
    connection,
    (e) => e.type === "session.turn" && e.sessionId === sessionId && e.turnId === turnId && e.state !== "started",
    `the end of turn ${turnId}`,
    STEP_MS,
  );
}

/** Opens a session; resolves with its `session.opened` once it is ready. */
export async function open(connection, sessionId, config, extra = {}) {
  const requestId = rid("open");
  const answer = waitEvent(
    connection,
    (e) => (e.type === "session.ready" && e.sessionId === sessionId) || (e.type === "request.failed" && e.requestId === requestId),
    `the open of ${sessionId}`,
    STEP_MS,
  );
  await connection.send({ type: "session.open", requestId, sessionId, config, history: "skip", ...extra });
  const done = await answer;
  assert.equal(done.type, "session.ready", `open of ${sessionId}: ${JSON.stringify(done)}`);
  return connection.events.find((e) => e.type === "session.opened" && e.sessionId === sessionId);
}
