//! Retries an agent only logs. OpenCode retries an unreachable model for about a minute and
//! says nothing over ACP meanwhile; with `--print-logs` its log lines come on stderr
//! (`level=ERROR … message="stream error" … error.error="AI_APICallError: Cannot connect to
//! API: …"`). The profile's [`RetryLog`] tells which stderr lines are such retries; each one
//! during a turn becomes the core's retry notice ("Retrying the model connection…" with the
//! CLI's words), withdrawn when the model answers or the turn ends. Paseo shows it; `try`
//! gives up on a model that stays out of reach.

use crate::state::{lock, SharedState};
use agent_bridge_core::lifecycle::SessionRuntime;
use agent_bridge_core::supervisor::StderrTail;
use agent_bridge_core::SessionSink;

pub use crate::profile::RetryLog;

impl RetryLog {
    /// The words of a retry line, `None` for any other line.
    pub fn retry_words(&self, line: &str) -> Option<String> {
        if !line.contains(&self.contains) {
            return None;
        }
        let words = self
            .words
            .as_deref()
            .and_then(|key| logfmt_value(line, key))
            .unwrap_or_else(|| line.trim().to_string());
        Some(without_repeated_cause(without_error_class(&words)).to_string())
    }
}

/// `X (cause: Error: X)` -> `X`: a cause that only repeats the message is dropped.
fn without_repeated_cause(words: &str) -> &str {
    let Some((message, cause)) = words
        .strip_suffix(')')
        .and_then(|w| w.rsplit_once(" (cause: "))
    else {
        return words;
    };
    if message.contains(without_error_class(cause)) {
        message
    } else {
        words
    }
}

/// The value of `key=` in a logfmt line: a quoted value up to its closing quote (`\"`
/// escapes kept as quotes), else up to the next space.
fn logfmt_value(line: &str, key: &str) -> Option<String> {
    let pattern = format!("{key}=");
    let start = line
        .match_indices(&pattern)
        .find(|(i, _)| *i == 0 || line[..*i].ends_with(' '))
        .map(|(i, _)| i + pattern.len())?;
    let rest = &line[start..];
    let Some(quoted) = rest.strip_prefix('"') else {
        return Some(rest.split(' ').next().unwrap_or_default().to_string());
    };
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    Some(out)
}

/// `AI_APICallError: Cannot connect…` -> `Cannot connect…`: the class of the error is not
/// the CLI's words.
fn without_error_class(words: &str) -> &str {
    match words.split_once(": ") {
        Some((class, rest)) if class.ends_with("Error") && !class.contains(' ') => rest,
        _ => words,
    }
}

/// Watches a session's agent for retries its profile says it logs (nothing when it says none).
pub fn follow(
    profile: &crate::profile::Profile,
    runtime: &SessionRuntime,
    shared: &SharedState,
    sink: &SessionSink,
) {
    if let Some(rule) = profile.retry_log.clone() {
        // A shared process's stderr is every session's on it: a retry is the model's, and each
        // session with a turn running shows it.
        let stderr = runtime.runtime().process.stderr_lines();
        watch(rule, stderr, shared.clone(), sink.clone());
    }
}

/// Follows the agent's stderr while both last: every retry line during a turn goes to the
/// sink as a retry notice. The task ends when the session is gone (a shared process's stderr
/// outlives it) or the process's stderr closed (a restart follows the new process); the tail
/// it holds keeps its line counter alive, so the counter alone would never end it.
pub fn watch(rule: RetryLog, stderr: StderrTail, shared: SharedState, sink: SessionSink) {
    tokio::spawn(async move {
        let mut changed = stderr.subscribe();
        let mut seen = 0;
        loop {
            let more = tokio::select! {
                biased;
                _ = sink.closed() => return,
                _ = stderr.closed() => false,
                r = changed.changed() => r.is_ok(),
            };
            let (lines, now) = stderr.lines_after(seen);
            seen = now;
            for words in lines.iter().filter_map(|l| rule.retry_words(l)) {
                let notice = lock(&shared).normalizer.retrying(&words);
                if let Some(notice) = notice {
                    if !sink.send(notice).await {
                        return;
                    }
                }
            }
            if !more {
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const LINE: &str = r#"timestamp=2026-12-02T14:56:07.740Z level=ERROR run=8a077152 message="stream error" providerID=mock modelID=mock-model small=false agent=build mode=primary error.error="AI_APICallError: Cannot connect to API: Unable to connect. Is the computer able to access the url? (cause: Error: \"x\")""#;

    fn opencode() -> RetryLog {
        RetryLog {
            contains: "message=\"stream error\"".into(),
            words: Some("error.error".into()),
        }
    }

    #[test]
    fn a_retry_line_gives_the_cli_words() {
        assert_eq!(
            opencode().retry_words(LINE).as_deref(),
            Some("Cannot connect to API: Unable to connect. Is the computer able to access the url? (cause: Error: \"x\")")
        );
        let repeated = LINE.replace(r#"Error: \"x\""#, "Error: Unable to connect.");
        assert_eq!(
            opencode().retry_words(&repeated).as_deref(),
            Some(
                "Cannot connect to API: Unable to connect. Is the computer able to access the url?"
            ),
            "a cause that repeats the message is dropped"
        );
        assert_eq!(
            opencode().retry_words(r#"level=INFO message="setup connection""#),
            None
        );
        let bare = RetryLog {
            contains: "retrying".into(),
            words: None,
        };
        assert_eq!(
            bare.retry_words("  retrying in 2s ").as_deref(),
            Some("retrying in 2s")
        );
    }

    #[test]
    fn logfmt_values_are_found_by_whole_key() {
        let line = r#"xerror.error=no error.error=plain next=1"#;
        assert_eq!(logfmt_value(line, "error.error").as_deref(), Some("plain"));
        assert_eq!(logfmt_value(line, "missing"), None);
    }

    #[test]
    fn a_retry_is_a_notice_only_during_a_turn_and_is_withdrawn_when_the_model_answers() {
        use agent_bridge_core::AgentEvent;
        let mut n = crate::normalize::Normalizer::new();
        assert!(n.retrying("Cannot connect").is_none(), "no turn, no notice");
        n.begin_turn("t1");
        let Some(AgentEvent::Notice(notice)) = n.retrying("Cannot connect") else {
            panic!("a notice")
        };
        assert!(agent_bridge_core::retry_notice::is_retry(&notice));
        assert_eq!(notice.description.as_deref(), Some("Cannot connect"));
        let Some(AgentEvent::Notice(settled)) = n.model_answered() else {
            panic!("withdrawn")
        };
        assert_eq!((settled.id, settled.dismissed), (notice.id, Some(true)));
        n.retrying("again");
        let ended = n.end_turn(false);
        assert!(
            matches!(&ended[..], [AgentEvent::Notice(p)] if p.dismissed == Some(true)),
            "{ended:?}"
        );
    }

    fn sh(script: &str) -> agent_bridge_core::supervisor::SpawnSpec {
        agent_bridge_core::supervisor::SpawnSpec {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            ..Default::default()
        }
    }

    /// Waits until only the test holds `shared` (the watch task let go of it).
    async fn released(shared: &SharedState) -> bool {
        for _ in 0..100 {
            if std::sync::Arc::strong_count(shared) == 1 {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        false
    }

    #[tokio::test]
    async fn the_watch_ends_with_the_session_or_with_the_stderr() {
        use agent_bridge_core::supervisor::ManagedChild;
        // A process that outlives the session (a shared process): the session's end ends it.
        let mut child = ManagedChild::spawn(&sh("echo one >&2; read x")).expect("sh");
        let shared = agent_bridge_core::lifecycle::shared(crate::state::SessionState::default());
        let (sink, events) = SessionSink::channel();
        watch(opencode(), child.stderr_tail_handle(), shared.clone(), sink);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert!(std::sync::Arc::strong_count(&shared) > 1, "following");
        drop(events);
        assert!(
            released(&shared).await,
            "the session is gone: the watch ended"
        );
        child.shutdown().await;

        // The process ends (a restart follows the new one): its stderr's end ends it.
        let mut child = ManagedChild::spawn(&sh("echo one >&2; read x")).expect("sh");
        let shared = agent_bridge_core::lifecycle::shared(crate::state::SessionState::default());
        let (sink, _events) = SessionSink::channel();
        watch(opencode(), child.stderr_tail_handle(), shared.clone(), sink);
        child.shutdown().await;
        assert!(
            released(&shared).await,
            "the stderr closed: the watch ended"
        );
    }
}
