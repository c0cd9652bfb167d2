// The adapter's limits seen from Paseo's side: an input over the transport's 16 MiB line limit
// (the real binary, demo provider).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  captureConsoleError,
  connectRequest,
  loadAdapter,
  openSessionInput,
  promptInput,
  recorder,
  requireBinary,
  settlesAtOnce,
} from "./harness.mjs";

/** Loads the adapter for one test and always runs its cleanup. */
function adapterFor(t, options) {
  const adapter = loadAdapter(options);
  t.after(async () => {
    await adapter.cleanup();
    adapter.restoreEnv();
  });
  return adapter;
}

/** A prompt carrying a base64 "image" of `bytes` characters. */
function imagePrompt(sessionId, clientMessageId, bytes) {
  const prompt = promptInput(sessionId, clientMessageId, "what is in this picture?");
  prompt.prompt.input.content.push({ type: "image", mimeType: "image/png", data: "A".repeat(bytes) });
  return prompt;
}

test("a prompt over 16 MiB is refused at once with its size and the limit; the next one runs", async (t) => {
  requireBinary();
  const logged = captureConsoleError(t);
  const connection = await adapterFor(t).provider("demo").connect(connectRequest());
  const events = recorder(connection);
  await connection.send(openSessionInput("big"));
  await events.waitFor((e) => e.type === "session.ready" && e.sessionId === "big", "session.ready");

  const refused = connection.send(imagePrompt("big", "huge", 17 * 1024 * 1024));
  assert.ok(await settlesAtOnce(refused), "refused without waiting for the bridge");
  await assert.rejects(refused, (error) => {
    assert.match(error.message, /^This prompt is too large for agent-bridge/);
    assert.match(error.message, /17\.0 MiB \(\d+ bytes\) as sent/, "names the size");
    assert.match(error.message, /16 MiB \(16777216 bytes\) limit/, "names the limit");
    assert.match(error.message, /Nothing was sent/);
    return true;
  });

  await connection.send(promptInput("big", "small", "Hello after the big one"));
  const done = await events.waitFor(
    (e) => e.type === "session.turn" && e.state !== "started" && e.sessionId === "big",
    "terminal session.turn",
  );
  assert.equal(done.state, "completed");
  const results = events.events.filter((e) => e.type === "session.prompt_result");
  assert.deepEqual(
    results.map((e) => e.clientMessageId),
    ["small"],
    "the refused prompt was never admitted, so it has no prompt result",
  );
  // Had the line reached the bridge, its `id: null` answer would precede the answers above.
  assert.ok(!logged.some((l) => /could not read a line|exceeds the 16 MiB limit/.test(l)), logged.join("\n"));
  await connection.close();
});
