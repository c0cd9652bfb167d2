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

/// The first `MAJOR.MINOR[.PATCH]` in a version banner: `codex-cli 0.171.0` -> (0, 171, 0),
/// `2.1.197 (Claude Code)` -> (2, 1, 197), `0.172.0-alpha.3` -> (0, 172, 0).
pub fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let word = text
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    let core = word.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("codex-cli 0.171.0\n"), Some((0, 171, 0)));
        assert_eq!(parse_version("2.1.197 (Claude Code)"), Some((2, 1, 197)));
        assert_eq!(
            parse_version("codex-cli 0.172.0-alpha.3"),
            Some((0, 172, 0))
        );
        assert_eq!(parse_version("tool 1.2"), Some((1, 2, 0)));
        assert_eq!(parse_version("garbage"), None);
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
