// A Paseo 0.9 host never asks for availability (its daemon does not call checkAvailability):
// a CLI that is missing or not logged in shows up as a connect that fails with the doctor's
// diagnostic. The pinned Claude Code with an empty HOME and no key (what a fresh install looks
// like), and a launch of a program that does not exist on the newest host.

import assert from "node:assert/strict";
import { test } from "node:test";
import { startHost, tempDir } from "./harness.mjs";
import { cliPath, cliRequired, hermeticEnv, reportSkipped, startMock } from "./providers.mjs";

const request = { versions: [1], capabilities: ["prompt.message"] };

test("0.9: connecting to a Claude Code that is not logged in fails with what to do", { timeout: 120_000 }, async (t) => {
  if (!cliPath("claude")) {
    if (cliRequired()) assert.fail("claude is not installed (tests/clis/install.sh)");
    reportSkipped("claude", "paseo-host-connect-not-logged-in", "not installed");
    t.skip("SKIPPED: claude not installed");
    return;
  }
  const mock = await startMock();
  t.after(() => mock.stop());
  const env = hermeticEnv("claude", tempDir("paseo-connect-"), mock.port);
  delete env.ANTHROPIC_API_KEY;
  const host = await startHost(t, { generation: "0.9", env });
  await assert.rejects(host.connect("claude-bridge", request), (error) => {
    assert.match(error.message, /Claude Code is not logged in: run `claude \/login` or set ANTHROPIC_API_KEY/);
    return true;
  });
});

test("newest: a launch of a missing program fails the connect, naming it", async (t) => {
  const host = await startHost(t, { generation: "newest" });
  const launch = { command: "/nonexistent/paseo-host/codex", args: [], env: { PATH: "/usr/bin:/bin" } };
  await assert.rejects(host.connect("codex-bridge", { ...request, launch }), /\/nonexistent\/paseo-host\/codex/);
  const status = await host.status("codex-bridge", { launch });
  assert.equal(status.status, "missing", JSON.stringify(status));
});
