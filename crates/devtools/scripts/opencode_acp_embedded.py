#!/usr/bin/env python3
"""`opencode acp` and the HTTP server it runs inside: which port it listens on (the default, an
explicit free one, an explicit busy one), whether OPENCODE_SERVER_PASSWORD guards it (basic
auth, user `opencode`) while ACP keeps working, whether the ACP `sessionId` is the server's
session id, and what revert (files and conversation, git folder) and archive do to the
ACP side (a fresh process's `session/load` replay, `session/list`). For docs/opencode-serve.md;
a measurement script, not a test.

usage: opencode_acp_embedded.py MOCK_LLM_BIN OPENCODE_BIN
"""
import base64, json, os, re, signal, socket, subprocess, sys, tempfile, time
import urllib.error, urllib.request

PASSWORD = "measure-only"
AUTH = "Basic " + base64.b64encode(f"opencode:{PASSWORD}".encode()).decode()

def req(method, url, body=None, auth=True):
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(url, data=data, method=method,
                               headers={"content-type": "application/json"})
    if auth:
        r.add_header("Authorization", AUTH)
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            text = resp.read().decode()
            return resp.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()[:200]

class Acp:
    def __init__(self, exe, env, cwd, extra):
        self.p = subprocess.Popen([exe, "acp", "--print-logs", *extra], env=env, cwd=cwd,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, start_new_session=True, text=True)
        self.next, self.updates = 0, []

    def call(self, method, params):
        self.next += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                return "EXITED"
            v = json.loads(line)
            if v.get("method") == "session/update":
                self.updates.append(v["params"]["update"])
            if v.get("id") == self.next and "method" not in v:
                return v.get("result", v.get("error"))

    def init(self):
        return self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})

    def ports(self):
        ss = subprocess.run(["ss", "-ltnp"], capture_output=True, text=True).stdout
        return re.findall(r"127\.0\.0\.1:(\d+)\s.*pid=%d," % self.p.pid, ss)

    def close(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except OSError:
            pass
        self.p.wait()

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def main():
    mock_bin, oc = sys.argv[1], sys.argv[2]
    root = tempfile.mkdtemp(prefix="oc-acp-embedded-")
    mock = subprocess.Popen([mock_bin, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    url = re.search(r"(http://\S+)", mock.stdout.readline()).group(1)
    env = json.loads(subprocess.check_output([mock_bin, "env", "opencode", "--root", root,
                                              "--port", url.rsplit(":", 1)[1]]))
    env["OPENCODE_SERVER_PASSWORD"] = PASSWORD
    cwd = os.path.join(root, "work")
    subprocess.check_call(["git", "init", "-q", cwd])
    with open(os.path.join(cwd, "tracked.txt"), "w") as f:
        f.write("original\n")
    git = ["git", "-C", cwd, "-c", "user.name=m", "-c", "user.email=m@m"]
    subprocess.check_call(git + ["add", "."])
    subprocess.check_call(git + ["commit", "-qm", "init"])
    req("POST", f"{url}/_mock/script", {"steps": [
        {"shell": "echo changed > tracked.txt && echo new > made.txt"}, "default",
        "default", "default"]}, auth=False)
    procs = []
    def start(extra):
        a = Acp(oc, env, cwd, extra)
        procs.append(a)
        return a
    try:
        a = start([]); a.init()
        b = start([]); b.init()
        print("default --port 0, two processes one after the other:", a.ports(), b.ports())
        busy = socket.socket(); busy.bind(("127.0.0.1", 0)); busy.listen()
        c = start(["--port", str(busy.getsockname()[1])])
        r = c.init(); time.sleep(1)
        print("explicit busy port: initialize ->", str(r)[:40], "exit code", c.p.poll())
        port = free_port()
        d = start(["--port", str(port)]); d.init()
        print("explicit free port", port, "listening on", d.ports())
        base = f"http://127.0.0.1:{port}"
        sid = d.call("session/new", {"cwd": cwd, "mcpServers": []})["sessionId"]
        st, _ = req("GET", f"{base}/session/{sid}", auth=False)
        print("GET /session/{acp sessionId} without auth:", st)
        st, s = req("GET", f"{base}/session/{sid}")
        print("... with basic auth:", st, "id equal:", s.get("id") == sid, "projectID:", s.get("projectID"))
        print("turn 1 (shell):", d.call("session/prompt", {"sessionId": sid, "prompt": [
            {"type": "text", "text": "first: run it"}]}).get("stopReason"))
        print("turn 2:", d.call("session/prompt", {"sessionId": sid, "prompt": [
            {"type": "text", "text": "second: say hi"}]}).get("stopReason"))
        def files():
            return (open(os.path.join(cwd, "tracked.txt")).read().strip(),
                    os.path.exists(os.path.join(cwd, "made.txt")))
        print("files after the turns (tracked.txt, made.txt exists):", files())
        st, msgs = req("GET", f"{base}/session/{sid}/message")
        users = [m["info"]["id"] for m in msgs if m["info"]["role"] == "user"]
        print("messages:", [m["info"]["role"] for m in msgs])
        st, s = req("POST", f"{base}/session/{sid}/revert", {"messageID": users[0]})
        print("revert to turn 1's user message:", st, "session.revert:", json.dumps(s.get("revert"))[:120])
        print("files after revert:", files())
        st, msgs = req("GET", f"{base}/session/{sid}/message")
        print("messages still stored after revert:", len(msgs))
        e = start([]); e.init()
        e.call("session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
        print("a fresh process's session/load replays user messages:", [
            u["content"].get("text") for u in e.updates if u.get("sessionUpdate") == "user_message_chunk"])
        print("turn 3:", d.call("session/prompt", {"sessionId": sid, "prompt": [
            {"type": "text", "text": "third"}]}).get("stopReason"))
        st, msgs = req("GET", f"{base}/session/{sid}/message")
        print("messages after turn 3:", [m["info"]["role"] for m in msgs])
        st, s = req("PATCH", f"{base}/session/{sid}", {"time": {"archived": int(time.time() * 1000)}})
        print("archive:", st, "time.archived:", s["time"].get("archived"))
        listed = d.call("session/list", {"cwd": cwd})
        print("ACP session/list after archive lists it:", any(x["sessionId"] == sid for x in listed["sessions"]),
              "fields:", sorted(listed["sessions"][0].keys()))
        st, s = req("PATCH", f"{base}/session/{sid}", {"time": {"archived": None}})
        print("unarchive with null:", st, "time.archived:", s["time"].get("archived"))
        st, s = req("PATCH", f"{base}/session/{sid}", {"time": {"archived": 0}})
        print("unarchive with 0:", st, "time.archived:", s["time"].get("archived"))
    finally:
        for p in procs:
            p.close()
        mock.send_signal(signal.SIGTERM)
        mock.wait()

if __name__ == "__main__":
    main()
