//! A bound on how long `try` waits for a model it cannot reach: while the agent reports that
//! it retries the model connection (retry notices, see `agent_bridge_core::retry_notice`) and
//! nothing else happens, `try` gives up after `--give-up-after` seconds with the CLI's last
//! words, instead of minutes of silent retries (Codex retries "waiting for network" without
//! end). Retries before the model said anything count from when the agent was tried. An agent
//! whose model says nothing at all within that time, retry notice or not, is given up too
//! (Kilo 7.7.7 offline waits for the network without a word over ACP). A real session in Paseo
//! keeps retrying and shows the notice.

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
    /// When the agent was tried (its open began), until the model answers.
    prompted: Option<Instant>,
    /// A retry was reported and the model has not answered since.
    retried: bool,
    /// A model that never answers is given up too (not only one the agent says it retries).
    silence: bool,
}

impl RetryWatch {
    pub fn new(limit: Duration) -> Self {
        RetryWatch {
            limit,
            since: None,
            last: String::new(),
            prompted: None,
            retried: false,
            silence: false,
        }
    }

    /// The agent was tried at `at` (its session began to open): retries before the model's
    /// first answer count from then; with `silence`, a model that never answers is given up
    /// at the same time.
    pub fn tried_at(&mut self, at: Instant, silence: bool) {
        self.prompted = Some(at);
        self.silence = silence;
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

    /// When to give up: while retries go on, or while the model has not answered yet.
    pub fn deadline(&self) -> Option<Instant> {
        let silent = self.prompted.filter(|_| self.silence);
        self.since.or(silent).map(|s| s + self.limit)
    }

    /// Why `try` gave up (the CLI's last words about its model, where it said any), and
    /// forgets the streak.
    pub fn give_up(&mut self) -> String {
        self.since = None;
        self.prompted = None;
        if self.last.is_empty() {
            format!(
                "the model did not answer within {} s, and the agent said nothing about it",
                self.limit.as_secs()
            )
        } else {
            format!(
                "the model could not be reached within {} s: {}",
                self.limit.as_secs(),
                self.last
            )
        }
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
        let prompt = Instant::now();
        watch.tried_at(prompt, false);
        assert_eq!(watch.deadline(), None, "no retry yet, silence not bounded");
        tokio::time::advance(Duration::from_secs(4)).await;
        watch.notice(&notices.retrying("Cannot connect to API", None));
        assert_eq!(watch.deadline(), Some(prompt + Duration::from_secs(30)));
        assert_eq!(watch.unreachable(), Some("Cannot connect to API"));
        // Withdrawn at the turn's end: the model was still never reached.
        watch.notice(&notices.settle().expect("open"));
        assert_eq!(watch.unreachable(), Some("Cannot connect to API"));
        watch.progress();
        assert_eq!(watch.unreachable(), None);
        assert_eq!(watch.deadline(), None, "the model answered: no bound");
        tokio::time::advance(Duration::from_secs(10)).await;
        let later = Instant::now();
        watch.notice(&notices.retrying("again", None));
        assert_eq!(
            watch.deadline(),
            Some(later + Duration::from_secs(30)),
            "after an answer the streak counts from its first retry"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_model_that_never_answers_is_given_up_without_a_retry() {
        let mut watch = RetryWatch::new(Duration::from_secs(30));
        let tried = Instant::now();
        watch.tried_at(tried, true);
        assert_eq!(watch.deadline(), Some(tried + Duration::from_secs(30)));
        assert_eq!(watch.unreachable(), None, "no retry was reported");
        assert_eq!(
            watch.give_up(),
            "the model did not answer within 30 s, and the agent said nothing about it"
        );
        assert_eq!(watch.deadline(), None, "given up once");
    }
}
