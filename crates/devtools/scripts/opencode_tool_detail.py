#!/usr/bin/env python3
"""What `opencode serve` and `opencode acp` each tell about the same tool calls (write, edit,
todowrite, bash), scripted in the mock model server, in a git working folder. For
docs/opencode-serve.md; a measurement script, not a test.

usage: opencode_tool_detail.py MOCK_LLM_BIN OPENCODE_BIN
"""
import json, os, re, signal, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(__file__))
from opencode_serve_vs_acp import Acp, Serve, http  # noqa: E402

def script(cwd):
    f = os.path.join(cwd, "notes.txt")
    return {"steps": [
        {"tool_call": {"name": "write", "arguments": {"filePath": f, "content": "one\ntwo\n"}}},
        "default",
        {"tool_call": {"name": "edit", "arguments": {"filePath": f, "oldString": "two",
                                                     "newString": "three"}}},
        "default",
        {"tool_call": {"name": "todowrite", "arguments": {"todos": [
            {"id": "1", "content": "first", "status": "completed", "priority": "high"},
            {"id": "2", "content": "second", "status": "in_progress", "priority": "low"}]}}},
        "default",
        {"shell": "echo x > made.txt"},
        "default"]}

PROMPTS = ["write the notes", "edit the notes", "plan it", "run it"]

def setup(mock_bin, side):
    root = tempfile.mkdtemp(prefix=f"oc-tools-{side}-")
    mock = subprocess.Popen([mock_bin, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    url = re.search(r"(http://\S+)", mock.stdout.readline()).group(1)
    port = url.rsplit(":", 1)[1]
    env = json.loads(subprocess.check_output([mock_bin, "env", "opencode", "--root", root,
                                              "--port", port]))
    cwd = os.path.join(root, "work")
    subprocess.check_call(["git", "init", "-q", cwd])
    http("POST", f"{url}/_mock/script", script(cwd))
    return mock, env, cwd

def serve_side(mock_bin, oc):
    mock, env, cwd = setup(mock_bin, "serve")
    s = Serve(oc, env, cwd)
    try:
        sid = s.new_session()
        for p in PROMPTS:
            http("POST", s.url(f"/session/{sid}/message"), {"parts": [{"type": "text", "text": p}]})
        for m in http("GET", s.url(f"/session/{sid}/message")):
            for p in m["parts"]:
                if p["type"] in ("tool", "patch"):
                    if p["type"] == "tool":
                        st = p["state"]
                        print("serve tool", p["tool"], st["status"], "input", json.dumps(st.get("input"))[:200])
                        print("    metadata keys", sorted((st.get("metadata") or {}).keys()),
                              json.dumps(st.get("metadata"))[:500])
                    else:
                        print("serve patch", [os.path.basename(f) for f in p["files"]])
        print("serve todo:", json.dumps(http("GET", s.url(f"/session/{sid}/todo"))))
        print("serve session summary:", json.dumps(http("GET", s.url(f"/session/{sid}")).get("summary"))[:300])
    finally:
        s.close(); mock.send_signal(signal.SIGTERM); mock.wait()

def acp_side(mock_bin, oc):
    mock, env, cwd = setup(mock_bin, "acp")
    c = Acp(oc, env, cwd)
    updates = []
    orig = c.p.stdout.readline
    def readline():
        line = orig()
        try:
            v = json.loads(line)
            if v.get("method") == "session/update":
                updates.append(v["params"]["update"])
            if v.get("method") == "session/request_permission":
                print("acp permission asked", json.dumps(v["params"])[:200])
        except ValueError:
            pass
        return line
    c.p.stdout.readline = readline
    try:
        for p in PROMPTS:
            c.call("session/prompt", {"sessionId": c.sid, "prompt": [{"type": "text", "text": p}]})
        for u in updates:
            kind = u.get("sessionUpdate")
            if kind in ("tool_call", "tool_call_update", "plan"):
                print("acp", kind, json.dumps(u)[:700])
    finally:
        c.close(); mock.send_signal(signal.SIGTERM); mock.wait()

if __name__ == "__main__":
    serve_side(sys.argv[1], sys.argv[2])
    acp_side(sys.argv[1], sys.argv[2])
