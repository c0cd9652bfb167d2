//! A bound on how long `try` waits for a model it cannot reach: while the agent reports that
//! it retries the model connection (retry notices, see `agent_bridge_core::retry_notice`) and
//! nothing else happens, `try` gives up after `--give-up-after` seconds with the CLI's last
//! words, instead of minutes of silent retries (Codex retries "waiting for network" without
//! end). Retries before the model said anything count from the prompt. A real session in
//! Paseo keeps retrying and shows the notice.

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
    /// When the prompt was sent, until the model answers.
    prompted: Option<Instant>,
    /// A retry was reported and the model has not answered since.
    retried: bool,
}

impl RetryWatch {
    pub fn new(limit: Duration) -> Self {
        RetryWatch {
            limit,
            since: None,
            last: String::new(),
            prompted: None,
            retried: false,
        }
    }

    /// The prompt was sent: retries before the model's first answer count from now.
    pub fn prompted(&mut self) {
        self.prompted = Some(Instant::now());
    }

    /// Takes a notice; true when it was a retry notice (rendered by the caller as any other).
    pub fn notice(&mut self, notice: &ProviderNotice) -> bool {
        if !retry_notice::is_retry(notice) {
            return false;
        }
        if notice.dismissed == Some(true) {
            self.since = None;
        } else {
            self.retried = true;
            let start = self.prompted.unwrap_or_else(Instant::now);
            self.since.get_or_insert(start);
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
        self.prompted = None;
        self.retried = false;
    }

    /// The agent's last words about the model it retried and never reached this turn.
    pub fn unreachable(&self) -> Option<&str> {
        self.retried.then_some(self.last.as_str())
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
        assert_eq!(
            watch.unreachable(),
            Some("Reconnecting... waiting for network")
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

    #[tokio::test(start_paused = true)]
    async fn retries_before_any_answer_count_from_the_prompt() {
        let mut watch = RetryWatch::new(Duration::from_secs(30));
        let mut notices = RetryNotice::default();
        watch.prompted();
        let prompt = Instant::now();
        tokio::time::advance(Duration::from_secs(4)).await;
        watch.notice(&notices.retrying("Cannot connect to API", None));
        assert_eq!(watch.deadline(), Some(prompt + Duration::from_secs(30)));
        assert_eq!(watch.unreachable(), Some("Cannot connect to API"));
        // Withdrawn at the turn's end: the model was still never reached.
        watch.notice(&notices.settle().expect("open"));
        assert_eq!(watch.unreachable(), Some("Cannot connect to API"));
        watch.progress();
        assert_eq!(watch.unreachable(), None);
        tokio::time::advance(Duration::from_secs(10)).await;
        let later = Instant::now();
        watch.notice(&notices.retrying("again", None));
        assert_eq!(
            watch.deadline(),
            Some(later + Duration::from_secs(30)),
            "after an answer the streak counts from its first retry"
        );
    }
}
