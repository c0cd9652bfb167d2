// A stand-in for `agent-bridge serve` that answers late or never, for the adapter's timeout
// tests (run through a wrapper named by AGENT_BRIDGE_BIN). It logs each message it reads to
// stderr as `fake bridge got <method> [<connectionId>]`.
//
// FAKE_BRIDGE_MUTE=1               answers nothing at all
// FAKE_BRIDGE_CONNECT_DELAY_MS=N   answers `provider/connect` N ms late
// FAKE_BRIDGE_LATE_MS=N            how late a `provider/send` of requestId "late" is answered
//                                  (default 1000); requestId "never" is never answered

import { createInterface } from "node:readline";

const mute = process.env.FAKE_BRIDGE_MUTE === "1";
const connectDelayMs = Number(process.env.FAKE_BRIDGE_CONNECT_DELAY_MS ?? 0);
const lateMs = Number(process.env.FAKE_BRIDGE_LATE_MS ?? 1000);
let connections = 0;

function reply(message, delayMs = 0) {
  const write = () => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  if (delayMs > 0) setTimeout(write, delayMs);
  else write();
}

function answer(id, result, delayMs = 0) {
  reply({ id, result }, delayMs);
}

function handle(message) {
  const connectionId = message.params?.connectionId;
  const about = connectionId ? ` ${connectionId}` : "";
  process.stderr.write(`fake bridge got ${message.method}${about}\n`);
  if (mute || message.id === undefined) return;
  switch (message.method) {
    case "initialize":
      return answer(message.id, {
        apiVersion: 1,
        bridge: { name: "fake-bridge", version: "0.0.0" },
        providers: [],
      });
    case "provider/availability":
      return answer(message.id, { status: "available" });
    case "provider/connect":
      connections += 1;
      return answer(
        message.id,
        { connectionId: `c${connections}`, version: 1, capabilities: ["prompt.message"] },
        connectDelayMs,
      );
    case "provider/send": {
      const requestId = message.params?.input?.requestId;
      if (requestId === "never") return undefined;
      return answer(message.id, null, requestId === "late" ? lateMs : 0);
    }
    case "provider/close":
      return answer(message.id, null);
    default:
      return reply({
        id: message.id,
        error: { code: -32601, message: `unknown method ${message.method}` },
      });
  }
}

createInterface({ input: process.stdin })
  .on("line", (line) => handle(JSON.parse(line)))
  .on("close", () => process.exit(0));
