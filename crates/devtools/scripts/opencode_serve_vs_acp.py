#!/usr/bin/env python3
"""`opencode serve` (HTTP + SSE) against `opencode acp` (ACP over stdio), side by side against
the mock model server, for docs/opencode-serve.md. A measurement script, not a test.

usage: opencode_serve_vs_acp.py MOCK_LLM_BIN OPENCODE_BIN [--turns N] [--opens N] [--out DIR]

For each side, alternating: cold opens (spawn -> first session ready: `serve` listening + POST
/session; `acp` initialize + session/new), then one session each and N "say hi" turns
interleaved (order swapped every turn; the first is not counted), then the process tree's RSS.
The serve side's OpenAPI document (GET /doc) is saved to DIR/opencode-openapi.json and its
paths are printed; a few of the session features are exercised (list, fork, revert, unrevert,
abort, todo, diff, messages with their parts).
"""
import json, os, re, signal, statistics, subprocess, tempfile, threading, time
import urllib.parse, urllib.request

def rss_tree(pid):
    kids = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(p))
        except OSError:
            pass
    total, todo = 0, [pid]
    while todo:
        q = todo.pop()
        todo += kids.get(q, [])
        try:
            with open(f"/proc/{q}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total

def http(method, url, body=None, timeout=90):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read()
        return json.loads(raw) if raw else None

class Serve:
    def __init__(self, exe, env, cwd):
        self.t0 = time.monotonic()
        self.p = subprocess.Popen([exe, "serve", "--port", "0", "--hostname", "127.0.0.1"],
                                  env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  start_new_session=True, text=True)
        self.cwd = cwd
        deadline = time.monotonic() + 90
        self.base = None
        while time.monotonic() < deadline:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("opencode serve exited")
            m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if m:
                self.base = m.group(1)
                break
        self.listening = time.monotonic() - self.t0
        threading.Thread(target=lambda: [None for _ in self.p.stdout], daemon=True).start()

    def url(self, path):
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path}{sep}directory={urllib.parse.quote(self.cwd)}"

    def new_session(self):
        s = http("POST", self.url("/session"), {})
        return s["id"]

    def turn(self, sid):
        body = {"parts": [{"type": "text", "text": "say hi"}]}
        t, wall = time.monotonic(), time.time()
        msg = http("POST", self.url(f"/session/{sid}/message"), body)
        took = time.monotonic() - t
        self.window = (wall, time.time())
        if msg.get("info", {}).get("error"):
            raise RuntimeError(f"serve turn failed: {msg['info']['error']}")
        return took, msg

    def close(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except OSError:
            pass
        self.p.wait()

class Acp:
    def __init__(self, exe, env, cwd):
        self.t0 = time.monotonic()
        self.p = subprocess.Popen([exe, "acp", "--print-logs"], env=env, cwd=cwd,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, start_new_session=True, text=True)
        self.next = 0
        self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        self.init = self.last
        self.sid = self.call("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        self.ready = time.monotonic() - self.t0

    def call(self, method, params):
        self.next += 1
        rid = self.next
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("opencode acp exited")
            v = json.loads(line)
            if v.get("id") == rid and "method" not in v:
                if "error" in v:
                    raise RuntimeError(f"{method}: {v['error']}")
                self.last = v["result"]
                return v["result"]

    def turn(self):
        t, wall = time.monotonic(), time.time()
        r = self.call("session/prompt", {"sessionId": self.sid,
                                         "prompt": [{"type": "text", "text": "say hi"}]})
        self.window = (wall, time.time())
        if r.get("stopReason") != "end_turn":
            raise RuntimeError(f"acp turn: {r}")
        return time.monotonic() - t

    def close(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except OSError:
            pass
        self.p.wait()

def p50(xs):
    return statistics.median(xs) * 1000 if xs else float("nan")

def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("mock"); ap.add_argument("opencode")
    ap.add_argument("--turns", type=int, default=15)
    ap.add_argument("--opens", type=int, default=4)
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="oc-serve-vs-acp-")
    log = os.path.join(root, "mock-requests.jsonl")
    mock = subprocess.Popen([a.mock, "--port", "0", "--log", log], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    port = int(re.search(r":(\d+)", mock.stdout.readline()).group(1))
    env = json.loads(subprocess.check_output([a.mock, "env", "opencode", "--root", root,
                                              "--port", str(port)]))
    env["PATH"] = os.path.dirname(a.opencode) + ":" + env.get("PATH", "")
    cwd = os.path.join(root, "work")
    out = {"opens": {"serve_listening": [], "serve_session": [], "acp": []},
           "turns": {"serve": [], "acp": []}, "windows": {"serve": [], "acp": []}}
    try:
        # A first start of each builds the database: not counted.
        Serve(a.opencode, env, cwd).close(); Acp(a.opencode, env, cwd).close()
        for i in range(a.opens):
            for side in (["serve", "acp"] if i % 2 == 0 else ["acp", "serve"]):
                if side == "serve":
                    s = Serve(a.opencode, env, cwd)
                    s.new_session()
                    out["opens"]["serve_listening"].append(s.listening)
                    out["opens"]["serve_session"].append(time.monotonic() - s.t0)
                    s.close()
                else:
                    c = Acp(a.opencode, env, cwd)
                    out["opens"]["acp"].append(c.ready)
                    c.close()
        s = Serve(a.opencode, env, cwd); sid = s.new_session()
        c = Acp(a.opencode, env, cwd)
        msgs = []
        for t in range(a.turns):
            for side in (["serve", "acp"] if t % 2 == 0 else ["acp", "serve"]):
                time.sleep(0.3)
                if side == "serve":
                    took, msg = s.turn(sid); msgs.append(msg)
                else:
                    took = c.turn()
                if t > 0:
                    out["turns"][side].append(took)
                    out["windows"][side].append((s if side == "serve" else c).window)
        time.sleep(1.5)
        out["rss"] = {"serve": rss_tree(s.p.pid), "acp": rss_tree(c.p.pid)}
        doc = http("GET", s.url("/doc"))
        with open(os.path.join(a.out, "opencode-openapi.json"), "w") as f:
            json.dump(doc, f, indent=1)
        paths = sorted(f"{m.upper()} {p}" for p, ops in doc.get("paths", {}).items() for m in ops)
        out["paths"] = paths
        # Features, exercised on the serve side.
        feats = {}
        feats["list"] = len(http("GET", s.url("/session")))
        fork = http("POST", s.url(f"/session/{sid}/fork"), {})
        feats["fork"] = fork.get("id") if isinstance(fork, dict) else fork
        messages = http("GET", s.url(f"/session/{sid}/message"))
        feats["messages"] = len(messages)
        feats["part_types"] = sorted({p.get("type") for m in messages for p in m.get("parts", [])})
        target = messages[len(messages) // 2]["info"]["id"]
        rev = http("POST", s.url(f"/session/{sid}/revert"), {"messageID": target})
        feats["revert"] = bool(rev.get("revert")) if isinstance(rev, dict) else rev
        unrev = http("POST", s.url(f"/session/{sid}/unrevert"), {})
        feats["unrevert"] = not (isinstance(unrev, dict) and unrev.get("revert"))
        for name, path in [("todo", f"/session/{sid}/todo"), ("diff", f"/session/{sid}/diff"),
                           ("children", f"/session/{sid}/children")]:
            try:
                feats[name] = http("GET", s.url(path))
            except Exception as e:  # noqa: BLE001
                feats[name] = f"error: {e}"
        feats["abort"] = http("POST", s.url(f"/session/{sid}/abort"), {})
        out["features"] = feats
        out["acp_initialize"] = c.init
        out["serve_last_message"] = msgs[-1] if msgs else None
        s.close(); c.close()
    finally:
        mock.send_signal(signal.SIGTERM); mock.wait()
    reqs = []
    with open(log) as f:
        for line in f:
            r = json.loads(line)
            if r.get("family") == "openai-chat" and r.get("done_unix_us"):
                reqs.append((r["at_unix_us"] / 1e6, r["done_unix_us"] / 1e6))
    phases = {}
    for side in ("serve", "acp"):
        before, after = [], []
        for sent, end in out["windows"][side]:
            during = [(at, done) for at, done in reqs if sent <= at <= end and done <= end]
            if during:
                before.append(min(at for at, _ in during) - sent)
                after.append(end - max(done for _, done in during))
        phases[side] = (p50(before), p50(after))
    summary = {
        "serve listening p50 ms": p50(out["opens"]["serve_listening"]),
        "serve spawn -> session p50 ms": p50(out["opens"]["serve_session"]),
        "acp spawn -> session/new p50 ms": p50(out["opens"]["acp"]),
        "serve turn p50 ms": p50(out["turns"]["serve"]),
        "acp turn p50 ms": p50(out["turns"]["acp"]),
        "serve prompt -> model request / model end -> turn end p50 ms": phases["serve"],
        "acp prompt -> model request / model end -> turn end p50 ms": phases["acp"],
        "serve tree RSS MB": out["rss"]["serve"] / 1e6,
        "acp tree RSS MB": out["rss"]["acp"] / 1e6,
        "n opens / turns": (a.opens, a.turns - 1),
    }
    with open(os.path.join(a.out, "opencode-serve-vs-acp.json"), "w") as f:
        json.dump(out, f, indent=1, default=str)
    print(json.dumps(summary, indent=1))
    print(json.dumps(out["features"], indent=1, default=str)[:4000])
    print("\n".join(out["paths"]))

if __name__ == "__main__":
    main()
