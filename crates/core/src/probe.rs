//! Short probe commands (`claude --version`, `codex sandbox -- true`, ...): run to completion
//! under the supervisor, bounded in time and output, with a version parser for their answers.

use crate::codec::Line;
use crate::supervisor::{ManagedChild, SpawnError, SpawnSpec};
use std::time::Duration;

/// What a probe printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeOutput {
    pub success: bool,
    /// Human-readable exit status (`exit status: 0`, `signal: 9`...).
    pub status: String,
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    pub stdout: String,
    /// The last stderr lines.
    pub stderr: String,
}

impl ProbeOutput {
    /// The first non-empty line of stdout, else of stderr (some CLIs print versions there).
    pub fn first_line(&self) -> Option<&str> {
        self.stdout
            .lines()
            .chain(self.stderr.lines())
            .map(str::trim)
            .find(|l| !l.is_empty())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("`{command}` did not finish within {} s", .limit.as_secs())]
    Timeout { command: String, limit: Duration },
}

/// Stdout kept from a probe (the rest is dropped).
const MAX_STDOUT: usize = 64 * 1024;

/// Runs `spec` with stdin closed until it exits or `limit` passes (then its group is killed).
pub async fn run_probe(spec: &SpawnSpec, limit: Duration) -> Result<ProbeOutput, ProbeError> {
    let mut child = ManagedChild::spawn(spec)?;
    drop(child.take_stdin());
    let mut lines = child.take_stdout_lines();
    let run = async {
        let mut stdout = String::new();
        if let Some(lines) = lines.as_mut() {
            while let Some(line) = lines.next_line().await {
                if let Line::Text(t) = line {
                    if stdout.len() + t.len() < MAX_STDOUT {
                        stdout.push_str(&t);
                        stdout.push('\n');
                    }
                }
            }
        }
        let status = child.wait().await;
        (stdout, status)
    };
    match tokio::time::timeout(limit, run).await {
        Ok((stdout, status)) => {
            // The last stderr lines are in once stderr closed.
            child
                .stderr_tail_handle()
                .closed_within(crate::agent_process::STDERR_CLOSE_LIMIT)
                .await;
            let (success, code, status) = match status {
                Ok(s) => (s.success(), s.code(), s.to_string()),
                Err(e) => (false, None, e.to_string()),
            };
            Ok(ProbeOutput {
                success,
                status,
                code,
                stdout,
                stderr: child.stderr_tail(),
            })
        }
        Err(_) => {
            child.kill().await;
            let command = std::iter::once(spec.program.as_str())
                .chain(spec.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ");
            Err(ProbeError::Timeout { command, limit })
        }
    }
}

/// The version type of [`parse_version`] (providers name their minimum with it).
pub use semver::Version;

/// The first version in a version banner, as semver: `codex-cli 0.171.0` -> 0.171.0,
/// `2.1.197 (Claude Code)` -> 2.1.197, `v0.172.0-alpha.3` -> 0.172.0-alpha.3 (a pre-release
/// orders before its release, so `0.171.0-alpha.1` is older than a minimum of 0.171.0).
/// A banner giving only `MAJOR.MINOR` reads as `MAJOR.MINOR.0`.
pub fn parse_version(text: &str) -> Option<semver::Version> {
    text.split_whitespace().find_map(|word| {
        let word = word.strip_prefix('v').unwrap_or(word);
        let word = word.trim_end_matches([',', ';', ')', ':']);
        if !word.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        semver::Version::parse(word).ok().or_else(|| {
            // `1.2` or `1.2-beta`: complete the patch number.
            let (core, rest) = match word.find(['-', '+']) {
                Some(i) => word.split_at(i),
                None => (word, ""),
            };
            (core.split('.').count() == 2)
                .then(|| semver::Version::parse(&format!("{core}.0{rest}")).ok())
                .flatten()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn versions_parse() {
        let v = |s: &str| parse_version(s).map(|v| v.to_string());
        assert_eq!(v("codex-cli 0.171.0\n").as_deref(), Some("0.171.0"));
        assert_eq!(v("2.1.197 (Claude Code)").as_deref(), Some("2.1.197"));
        assert_eq!(
            v("codex-cli 0.172.0-alpha.3").as_deref(),
            Some("0.172.0-alpha.3")
        );
        assert_eq!(v("tool v1.2.3+build.5").as_deref(), Some("1.2.3+build.5"));
        assert_eq!(v("tool 1.2").as_deref(), Some("1.2.0"));
        assert_eq!(v("tool 1.2-rc1").as_deref(), Some("1.2.0-rc1"));
        assert_eq!(v("2024 edition, tool 3.0.1").as_deref(), Some("3.0.1"));
        assert_eq!(v("garbage"), None);
        assert_eq!(v("tool 7"), None);
        // A pre-release is older than its release, newer than the one before.
        let min = semver::Version::new(0, 171, 0);
        assert!(parse_version("codex-cli 0.171.0-alpha.1").unwrap() < min);
        assert!(parse_version("codex-cli 0.172.0-alpha.1").unwrap() > min);
    }

    #[tokio::test]
    async fn probes_capture_output_and_status() {
        let spec = SpawnSpec {
            program: "sh".into(),
            args: vec![
                "-c".into(),
                "echo; echo tool 1.2.3; echo oops >&2; exit 3".into(),
            ],
            ..Default::default()
        };
        let out = run_probe(&spec, Duration::from_secs(10)).await.unwrap();
        assert!(!out.success);
        assert_eq!(out.first_line(), Some("tool 1.2.3"));
        assert_eq!(out.stderr, "oops");
        assert!(out.status.contains('3'), "{}", out.status);
    }

    #[tokio::test]
    async fn a_hanging_probe_times_out_and_is_killed() {
        let spec = SpawnSpec {
            program: "sleep".into(),
            args: vec!["30".into()],
            ..Default::default()
        };
        let err = run_probe(&spec, Duration::from_millis(200))
            .await
            .unwrap_err();
        assert!(matches!(err, ProbeError::Timeout { .. }), "{err}");
    }
}
