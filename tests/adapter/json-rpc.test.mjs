// The adapter's JSON-RPC peer (server/json-rpc.ts) on in-memory streams: the outgoing line
// limit.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { adapterModule, settlesAtOnce, waitUntil } from "./harness.mjs";

const { JsonRpcPeer } = adapterModule("json-rpc");
const { LineTooLongError, MAX_LINE_BYTES } = adapterModule("line-limit");

/** A peer whose bridge is the test: `written` holds the lines it sent, `answer` replies. */
function peerFor(t) {
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
  const peer = new JsonRpcPeer(fromBridge, toBridge, {
    onNotification() {},
    log: (message) => logged.push(message),
  });
  t.after(() => peer.fail(new Error("test over")));
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
