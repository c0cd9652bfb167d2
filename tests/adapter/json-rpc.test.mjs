// The adapter's JSON-RPC peer (server/json-rpc.ts) on in-memory streams: the outgoing line
// limit, request timeouts, late and `id: null` answers.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { adapterModule, settlesAtOnce, waitUntil } from "./harness.mjs";

const { JsonRpcPeer } = adapterModule("json-rpc");
const { LineTooLongError, MAX_LINE_BYTES } = adapterModule("line-limit");
const { RequestTimeoutError } = adapterModule("request-timeouts");

/** A peer whose bridge is the test: `written` holds the lines it sent, `answer` replies. */
function peerFor(t, { timeoutMs = 60_000 } = {}) {
  const fromBridge = new PassThrough();
  const toBridge = new PassThrough();
  const written = [];
  let partial = "";
  toBridge.setEncoding("utf8");
  toBridge.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    written.push(...lines);
  });
  const logged = [];
  const peer = new JsonRpcPeer(
    fromBridge,
    toBridge,
    { onNotification() {}, log: (message) => logged.push(message) },
    { timeoutFor: () => timeoutMs },
  );
  // The peer's timers do not hold the event loop (a real bridge process does): hold it here.
  const keepAlive = setInterval(() => {}, 1000);
  t.after(() => {
    clearInterval(keepAlive);
    peer.fail(new Error("test over"));
  });
  const answer = (message) => fromBridge.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  return { peer, written, logged, answer };
}

/** Params whose request line (id 1, method "m") is exactly `bytes` long, newline included. */
function paramsOfLine(bytes, pad = "x") {
  const overhead = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "m", params: { pad: "" } })}\n`;
  const room = bytes - Buffer.byteLength(overhead);
  const unit = Buffer.byteLength(pad);
  return { pad: pad.repeat(Math.floor(room / unit)) + "x".repeat(room % unit) };
}

test("a line of exactly 16 MiB is sent; one byte more is refused at once and nothing is written", async (t) => {
  const { peer, written, answer } = peerFor(t);
  const atLimit = peer.request("m", paramsOfLine(MAX_LINE_BYTES));
  await waitUntil(() => written.length === 1, "the line at the limit is written");
  assert.equal(Buffer.byteLength(`${written[0]}\n`), MAX_LINE_BYTES);
  answer({ id: 1, result: "ok" });
  assert.equal(await atLimit, "ok");

  // Multi-byte text: counted in UTF-8 bytes as written, not in string length.
  const params = paramsOfLine(MAX_LINE_BYTES + 1, "é");
  assert.ok(JSON.stringify(params).length < MAX_LINE_BYTES, "under the limit in UTF-16 units");
  const tooLong = peer.request("m", params);
  assert.ok(await settlesAtOnce(tooLong), "refused without waiting for the bridge");
  await assert.rejects(tooLong, (error) => {
    assert.ok(error instanceof LineTooLongError);
    assert.equal(error.limit, MAX_LINE_BYTES);
    assert.ok(error.bytes > MAX_LINE_BYTES);
    assert.match(error.message, /^m not sent/);
    assert.match(error.message, new RegExp(`${error.bytes} bytes`), "names the size");
    assert.match(error.message, /16 MiB \(16777216 bytes\) limit/, "names the limit");
    return true;
  });
  assert.equal(peer.pendingCount, 0);

  // The refused request used no id and wrote nothing; the next one goes through.
  const next = peer.request("m", { small: true });
  await waitUntil(() => written.length === 2, "the next request is written");
  assert.equal(JSON.parse(written[1]).id, 2);
  answer({ id: 2, result: "still working" });
  assert.equal(await next, "still working");
});

test("an unanswered request times out naming its method and time; its entry is removed", async (t) => {
  const { peer, logged } = peerFor(t, { timeoutMs: 30 });
  const never = peer.request("provider/send", { input: { type: "catalog" } });
  assert.equal(peer.pendingCount, 1);
  await assert.rejects(never, (error) => {
    assert.ok(error instanceof RequestTimeoutError);
    assert.equal(error.method, "provider/send");
    assert.equal(error.timeoutMs, 30);
    assert.match(error.message, /provider\/send/);
    assert.match(error.message, /30 ms/);
    return true;
  });
  assert.equal(peer.pendingCount, 0, "no pending entry is left behind");
  assert.ok(logged.some((line) => /provider\/send \(id 1\) got no answer within 30 ms/.test(line)));
});

test("a late answer is logged and ignored; the peer keeps working", async (t) => {
  const { peer, logged, answer } = peerFor(t, { timeoutMs: 30 });
  const late = [];
  const request = peer.request("provider/connect", {}, {
    onResult: () => assert.fail("a timed-out request maps no result"),
    onLateResult: (result) => late.push(result),
  });
  await assert.rejects(request, RequestTimeoutError);
  answer({ id: 1, result: { connectionId: "c1" } });
  answer({ id: 1, result: { connectionId: "c1" } }); // twice: the second one matches nothing
  await waitUntil(() => logged.some((l) => /without a pending request/.test(l)), "both logged");
  assert.ok(logged.some((l) => /ignored a late answer to provider\/connect \(id 1\)/.test(l)));
  assert.deepEqual(late, [{ connectionId: "c1" }], "the late result is handed over once");
  assert.equal(peer.pendingCount, 0);

  const next = peer.request("provider/send", {});
  answer({ id: 2, result: null });
  assert.equal(await next, null);
});

test("an `id: null` answer is logged and settles nothing; the request left waiting times out", async (t) => {
  const { peer, logged, answer } = peerFor(t, { timeoutMs: 200 });
  const waiting = peer.request("provider/send", {});
  answer({
    id: null,
    error: { code: -32600, message: "line of 17000000 bytes exceeds the 16 MiB limit; discarded" },
  });
  await waitUntil(() => logged.some((l) => /could not read a line/.test(l)), "id: null logged");
  const line = logged.find((l) => /could not read a line/.test(l));
  assert.match(line, /-32600/);
  assert.match(line, /exceeds the 16 MiB limit/);
  assert.equal(peer.pendingCount, 1, "an id: null answer matches no request");
  await assert.rejects(waiting, RequestTimeoutError);
  assert.equal(peer.pendingCount, 0);
});

test("fail() rejects every pending request and the ones after it", async (t) => {
  const { peer } = peerFor(t);
  const first = peer.request("provider/send", {});
  const second = peer.request("provider/close", {});
  peer.fail(new Error("bridge gone"));
  assert.equal(peer.pendingCount, 0);
  await assert.rejects(first, /bridge gone/);
  await assert.rejects(second, /bridge gone/);
  await assert.rejects(peer.request("provider/send", {}), /bridge gone/);
});

test("every method the adapter sends has its own timeout; Paseo's availability budget is kept", () => {
  const { REQUEST_TIMEOUTS_MS, requestTimeoutMs, timeoutOverride } = adapterModule("request-timeouts");
  for (const method of [
    "initialize",
    "provider/availability",
    "provider/catalogCacheKey",
    "provider/connect",
    "provider/send",
    "provider/close",
  ]) {
    assert.ok(REQUEST_TIMEOUTS_MS[method] > 0, `${method} has a default`);
  }
  // The bridge answers availability within Paseo's `timeoutMs`: the adapter waits longer.
  assert.ok(requestTimeoutMs("provider/availability", { timeoutMs: 60_000 }) > 60_000);
  assert.equal(requestTimeoutMs("provider/send", {}, 1234), 1234, "the override replaces it");
  assert.equal(timeoutOverride({ AGENT_BRIDGE_REQUEST_TIMEOUT_MS: "250" }), 250);
  assert.equal(timeoutOverride({}), undefined);
  const original = console.error;
  console.error = () => {};
  try {
    assert.equal(timeoutOverride({ AGENT_BRIDGE_REQUEST_TIMEOUT_MS: "soon" }), undefined);
  } finally {
    console.error = original;
  }
});
