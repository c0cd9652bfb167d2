//! Shared helpers of the smoke tests: run one real CLI in its hermetic env with a timeout,
//! in its own process group (killed at the end: npm shims spawn native children), and parse
//! its JSONL stdout.

#![allow(dead_code)]

use mock_llm::{Family, HermeticEnv, MockLlm};
use serde_json::Value;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// Per-child limit. A turn against the mock takes well under a second; CLI start-up takes
/// 0.2-3 s, more while other builds load the machine.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// The prompt of the shell-tool scenario.
pub const TOOL_PROMPT: &str = "please run `echo hello`";

pub struct CliRun {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    /// The stdout lines that parse as JSON objects.
    pub events: Vec<Value>,
    pub elapsed: Duration,
    pub timed_out: bool,
}

impl CliRun {
    /// Panics with the CLI's output unless it exited 0 in time.
    pub fn assert_success(&self, what: &str) {
        assert!(
            !self.timed_out && self.status.is_some_and(|s| s.success()),
            "{what}: timed_out={} status={:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.timed_out,
            self.status,
            self.stdout,
            tail(&self.stderr, 4000)
        );
    }

    /// Events whose `type` is `ty`.
    pub fn of_type(&self, ty: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == ty).collect()
    }
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..s.len())
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(s.len());
    &s[start..]
}

async fn read_all(mut r: impl tokio::io::AsyncRead + Unpin) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = r.read_to_end(&mut buf).await;
    buf
}

fn kill_group(pgid: i32) {
    // SAFETY: plain syscall; the group is the child's own (process_group(0)).
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Runs `program args` in `env` (cleared environment, cwd = env.workdir, stdin /dev/null),
/// with [`TIMEOUT`]; the whole process group is killed afterwards.
pub async fn run_cli(env: &HermeticEnv, program: &Path, args: &[&str]) -> CliRun {
    let started = Instant::now();
    let mut cmd = Command::new(program);
    env.apply(&mut cmd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
    let pgid = child.id().expect("child pid") as i32;
    let stdout = tokio::spawn(read_all(child.stdout.take().expect("stdout")));
    let stderr = tokio::spawn(read_all(child.stderr.take().expect("stderr")));
    let (status, timed_out) = match tokio::time::timeout(TIMEOUT, child.wait()).await {
        Ok(status) => (status.ok(), false),
        Err(_) => (None, true),
    };
    // No orphans: leftover children (shells, native binaries behind npm shims) go too.
    kill_group(pgid);
    let _ = child.wait().await;
    let grace = Duration::from_secs(5);
    let stdout = tokio::time::timeout(grace, stdout)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let stderr = tokio::time::timeout(grace, stderr)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let events = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(Value::is_object)
        .collect();
    CliRun {
        status,
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        events,
        elapsed: started.elapsed(),
        timed_out,
    }
}

/// Asserts that every request the mock saw belongs to `allowed` (so, in particular, that no
/// `proxy-refused` outbound attempt happened unless listed) and returns the model calls.
pub fn assert_only_families(mock: &MockLlm, allowed: &[Family]) -> Vec<mock_llm::RecordedRequest> {
    let requests = mock.requests();
    let unexpected: Vec<String> = requests
        .iter()
        .filter(|r| !allowed.contains(&r.family))
        .map(|r| format!("{} {} {} ({})", r.family, r.method, r.path, r.reply))
        .collect();
    assert!(
        unexpected.is_empty(),
        "unexpected requests: {unexpected:#?}"
    );
    assert!(mock.proxy_refused().is_empty() || allowed.contains(&Family::ProxyRefused));
    mock.model_requests()
}

/// Asserts the shell-tool round trip in the mock's log: some request declared `tool`, the
/// mock answered it with a call of `tool`, and a later request carried the result "hello".
pub fn assert_tool_round_trip(mock: &MockLlm, tool: &str) {
    let requests = mock.model_requests();
    let call = requests
        .iter()
        .position(|r| r.reply == format!("tool-call:{tool}"))
        .unwrap_or_else(|| {
            panic!(
                "no request was answered with a {tool} call: {:#?}",
                summary(&requests)
            )
        });
    assert!(
        requests[call].tool_names().iter().any(|t| t == tool),
        "{tool} was not declared"
    );
    let result = requests[call + 1..]
        .iter()
        .find_map(|r| r.tool_result())
        .unwrap_or_else(|| panic!("no tool result came back: {:#?}", summary(&requests)));
    assert!(
        result.contains("hello"),
        "tool result without the output: {result:?}"
    );
}

/// One line per request, for assertion messages.
pub fn summary(requests: &[mock_llm::RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .map(|r| {
            format!(
                "{} {} -> {} tools={:?}",
                r.family,
                r.path,
                r.reply,
                r.tool_names()
            )
        })
        .collect()
}

/// Appends `<cli> <version> <scenario> ok` to $AGENT_BRIDGE_CLI_REPORT and logs the timing.
pub fn report(cli: &str, path: &Path, scenario: &str, run: &CliRun) {
    let version = mock_llm::cli_version(path).unwrap_or_else(|| "unknown".into());
    eprintln!(
        "{cli} {version} {scenario} ok in {:.2} s",
        run.elapsed.as_secs_f64()
    );
    mock_llm::report_ok(cli, &version, scenario);
}
