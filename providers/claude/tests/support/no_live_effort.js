// Test shim: runs the real `claude` given as the first argument with the remaining arguments,
// passing stdio through, except that it refuses `apply_flag_settings` the way a Claude Code
// without that control request does ("Unsupported control request subtype"). It lets the
// e2e suite exercise the provider's respawn path for thinking changes with the real CLI.
const { spawn } = require("node:child_process");
const readline = require("node:readline");

const [claude, ...args] = process.argv.slice(2);
const child = spawn(claude, args, { stdio: ["pipe", "inherit", "inherit"] });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.on("SIGTERM", () => child.kill("SIGTERM"));

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  let msg = null;
  try {
    msg = JSON.parse(line);
  } catch {}
  if (msg && msg.type === "control_request" && msg.request && msg.request.subtype === "apply_flag_settings") {
    const error = `Unsupported control request subtype: ${msg.request.subtype}`;
    process.stdout.write(JSON.stringify({ type: "control_response", response: { subtype: "error", request_id: msg.request_id, error } }) + "\n");
    return;
  }
  child.stdin.write(line + "\n");
});
input.on("close", () => child.stdin.end());
