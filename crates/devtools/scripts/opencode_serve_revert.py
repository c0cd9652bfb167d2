#!/usr/bin/env python3
"""`opencode serve`: a shell tool turn that writes a file, then what the server tells about it
(the message parts, the session diff) and whether reverting to that message restores the
file and the conversation. For docs/opencode-serve.md; a measurement script, not a test.

usage: opencode_serve_revert.py MOCK_LLM_BIN OPENCODE_BIN [--git]
"""
import json, os, re, signal, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(__file__))
from opencode_serve_vs_acp import Serve, http  # noqa: E402

def main():
    mock_bin, oc = sys.argv[1], sys.argv[2]
    root = tempfile.mkdtemp(prefix="oc-serve-revert-")
    mock = subprocess.Popen([mock_bin, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    port = int(re.search(r":(\d+)", mock.stdout.readline()).group(1))
    env = json.loads(subprocess.check_output([mock_bin, "env", "opencode", "--root", root,
                                              "--port", str(port)]))
    cwd = os.path.join(root, "work")
    if "--git" in sys.argv:
        subprocess.check_call(["git", "init", "-q", cwd])
    with open(os.path.join(cwd, "keep.txt"), "w") as f:
        f.write("before\n")
    s = Serve(oc, env, cwd)
    try:
        sid = s.new_session()
        body = {"parts": [{"type": "text", "text": "say hi"}]}
        http("POST", s.url(f"/session/{sid}/message"), body)
        body = {"parts": [{"type": "text", "text":
                           "run `echo after > keep.txt && echo new > made.txt`"}]}
        t = time.monotonic()
        http("POST", s.url(f"/session/{sid}/message"), body)
        print("tool turn ms", round((time.monotonic() - t) * 1000, 1))
        msgs = http("GET", s.url(f"/session/{sid}/message"))
        for m in msgs:
            info = m["info"]
            print(info["role"], info["id"], [p["type"] for p in m["parts"]])
            for p in m["parts"]:
                if p["type"] in ("tool", "patch", "step-start", "step-finish"):
                    print("   ", json.dumps(p)[:600])
        print("files:", sorted(os.listdir(cwd)), open(os.path.join(cwd, "keep.txt")).read().strip())
        print("diff:", json.dumps(http("GET", s.url(f"/session/{sid}/diff")))[:800])
        user2 = [m for m in msgs if m["info"]["role"] == "user"][1]["info"]["id"]
        rev = http("POST", s.url(f"/session/{sid}/revert"), {"messageID": user2})
        print("revert:", json.dumps(rev.get("revert")))
        print("files after revert:", sorted(os.listdir(cwd)),
              open(os.path.join(cwd, "keep.txt")).read().strip())
        http("POST", s.url(f"/session/{sid}/unrevert"), {})
        print("files after unrevert:", sorted(os.listdir(cwd)),
              open(os.path.join(cwd, "keep.txt")).read().strip())
        http("POST", s.url(f"/session/{sid}/revert"), {"messageID": user2})
        body = {"parts": [{"type": "text", "text": "say hi"}]}
        http("POST", s.url(f"/session/{sid}/message"), body)
        msgs = http("GET", s.url(f"/session/{sid}/message"))
        print("after revert + new prompt:", [(m["info"]["role"], [p["type"] for p in m["parts"]]) for m in msgs])
        print("files:", sorted(os.listdir(cwd)), open(os.path.join(cwd, "keep.txt")).read().strip())
    finally:
        s.close()
        mock.send_signal(signal.SIGTERM); mock.wait()

if __name__ == "__main__":
    main()
