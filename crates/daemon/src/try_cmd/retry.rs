//! A bound on how long `try` waits for a model it cannot reach: while the agent reports that
//! it retries the model connection (retry notices, see `agent_bridge_core::retry_notice`) and
//! nothing else happens, `try` gives up after `--give-up-after` seconds with the CLI's last
//! words, instead of minutes of silent retries (Codex retries "waiting for network" without
//! end). A real session in Paseo keeps retrying and shows the notice.

use agent_bridge_core::retry_notice;
use agent_bridge_protocol::ProviderNotice;
use std::time::Duration;
use tokio::time::Instant;

/// Environment `try` gives a Claude session: Claude Code retries an unreachable API 10 times
/// over ~3 minutes by default; 2 retries fail within seconds with its own message.
pub const CLAUDE_RETRIES: (&str, &str) = ("CLAUDE_CODE_MAX_RETRIES", "2");

#[derive(Debug)]
pub struct RetryWatch {
    limit: Duration,
    since: Option<Instant>,
    last: String,
}

impl RetryWatch {
    pub fn new(limit: Duration) -> Self {
        RetryWatch {
            limit,
            since: None,
            last: String::new(),
        }
    }

    /// Takes a notice; true when it was a retry notice (rendered by the caller as any other).
    pub fn notice(&mut self, notice: &ProviderNotice) -> bool {
        if !retry_notice::is_retry(notice) {
            return false;
        }
        if notice.dismissed == Some(true) {
            self.since = None;
        } else {
            self.since.get_or_insert_with(Instant::now);
            self.last = notice
                .description
                .clone()
                .unwrap_or_else(|| notice.title.clone());
        }
        true
    }

    /// Something other than a retry happened (the model answered).
    pub fn progress(&mut self) {
        self.since = None;
    }

    /// When to give up, while retries go on.
    pub fn deadline(&self) -> Option<Instant> {
        self.since.map(|s| s + self.limit)
    }

    /// Why `try` gave up, and forgets the streak.
    pub fn give_up(&mut self) -> String {
        self.since = None;
        format!(
            "the model could not be reached within {} s: {}",
            self.limit.as_secs(),
            self.last
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::retry_notice::RetryNotice;
    use pretty_assertions::assert_eq;

    #[tokio::test(start_paused = true)]
    async fn retries_start_the_clock_and_progress_stops_it() {
        let mut watch = RetryWatch::new(Duration::from_secs(30));
        let mut notices = RetryNotice::default();
        assert_eq!(watch.deadline(), None);
        let start = Instant::now();
        assert!(watch.notice(&notices.retrying("Reconnecting... 1/5", Some("refused"))));
        tokio::time::advance(Duration::from_secs(5)).await;
        watch.notice(&notices.retrying("Reconnecting... waiting for network", None));
        assert_eq!(
            watch.deadline(),
            Some(start + Duration::from_secs(30)),
            "the streak's start counts"
        );
        watch.progress();
        assert_eq!(watch.deadline(), None);
        watch.notice(&notices.retrying("again", None));
        let dismissed = notices.settle().expect("open");
        watch.notice(&dismissed);
        assert_eq!(watch.deadline(), None, "a withdrawn notice ends the streak");
        watch.notice(&notices.retrying("Reconnecting... waiting for network", None));
        assert_eq!(
            watch.give_up(),
            "the model could not be reached within 30 s: Reconnecting... waiting for network"
        );
        let other = ProviderNotice {
            id: "x".into(),
            severity: agent_bridge_protocol::Severity::Warning,
            title: "t".into(),
            description: None,
            dismissed: None,
        };
        assert!(!watch.notice(&other));
    }
}
