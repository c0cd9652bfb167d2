//! "Retrying the model connection…" as a session notice: while a CLI retries a model request
//! it cannot get through (no network, a refused connection, an overloaded API), the user sees
//! that it does and why, instead of silence. The CLI keeps its own retry policy (a real session
//! should ride out a transient error); the notice is withdrawn (`dismissed`) once the model
//! answers or the turn ends. Notices of this kind have ids starting with [`PREFIX`], so a
//! host that bounds a turn (`agent-bridge try`) can tell them apart.

use agent_bridge_protocol::{ProviderNotice, Severity};

/// Id prefix of retry notices.
pub const PREFIX: &str = "model-retry:";
const TITLE: &str = "Retrying the model connection";

/// True for a notice made by [`RetryNotice`].
pub fn is_retry(notice: &ProviderNotice) -> bool {
    notice.id.starts_with(PREFIX)
}

/// One session's retry notice: the same id while one retry streak lasts, a new one after.
#[derive(Debug, Default)]
pub struct RetryNotice {
    open: Option<String>,
    streaks: u64,
}

impl RetryNotice {
    /// The notice for one more retry: the CLI's words (`Reconnecting... 2/5`) and its detail.
    pub fn retrying(&mut self, what: &str, detail: Option<&str>) -> ProviderNotice {
        let id = match &self.open {
            Some(id) => id.clone(),
            None => {
                self.streaks += 1;
                let id = format!("{PREFIX}{}", self.streaks);
                self.open = Some(id.clone());
                id
            }
        };
        let mut description = what.trim().to_string();
        if let Some(d) = detail.map(str::trim).filter(|d| !d.is_empty()) {
            if description.is_empty() {
                description = d.to_string();
            } else {
                description.push_str(&format!(": {d}"));
            }
        }
        ProviderNotice {
            id,
            severity: Severity::Warning,
            title: format!("{TITLE}…"),
            description: Some(description).filter(|d| !d.is_empty()),
            dismissed: None,
        }
    }

    /// The open notice, dismissed (the model answered, or the turn ended); `None` when no
    /// retry is under way.
    pub fn settle(&mut self) -> Option<ProviderNotice> {
        let id = self.open.take()?;
        Some(ProviderNotice {
            id,
            severity: Severity::Warning,
            title: TITLE.to_string(),
            description: None,
            dismissed: Some(true),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn one_streak_is_one_notice_then_it_is_dismissed() {
        let mut r = RetryNotice::default();
        assert_eq!(r.settle(), None, "nothing to dismiss");
        let first = r.retrying(
            "Reconnecting... 1/5",
            Some("Connection refused (os error 111)"),
        );
        let second = r.retrying("Reconnecting... 2/5", None);
        assert_eq!(first.id, second.id);
        assert!(is_retry(&first));
        assert_eq!(
            first.description.as_deref(),
            Some("Reconnecting... 1/5: Connection refused (os error 111)")
        );
        assert_eq!(first.title, "Retrying the model connection…");
        let done = r.settle().expect("an open notice");
        assert_eq!(
            (done.id.as_str(), done.dismissed),
            (first.id.as_str(), Some(true))
        );
        assert_eq!(r.settle(), None);
        let next = r.retrying("", Some("overloaded"));
        assert_ne!(next.id, first.id, "a new streak is a new notice");
        assert_eq!(next.description.as_deref(), Some("overloaded"));
    }
}
