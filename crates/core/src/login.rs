//! A CLI's login state as an availability check found it, and what that makes the provider.

use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};
use std::time::Duration;

/// How long a "logged in" answer is trusted before it is checked again.
pub const LOGGED_IN_FRESH: Duration = Duration::from_secs(600);
/// How long "not logged in" (or "could not tell") is trusted: short, so a login the user just
/// did is seen at the next check.
pub const LOGGED_OUT_FRESH: Duration = Duration::from_secs(20);

/// How an availability diagnostic starts when the login check could not tell (see
/// [`is_unchecked`]).
const UNCHECKED: &str = "could not check the ";

/// True when `a` is "available" only because its login check could not tell yet (it timed
/// out, say). Asking again may give the answer: a probe that did not finish in time goes on
/// in the background and is remembered (`doctor` and `try` ask again).
pub fn is_unchecked(a: &ProviderAvailability) -> bool {
    a.status == AvailabilityStatus::Available
        && a.diagnostic
            .as_deref()
            .is_some_and(|d| d.starts_with(UNCHECKED))
}

/// What a login check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Login {
    /// Logged in; how (`api_key`, `chatgpt`, `a configured model provider`...).
    LoggedIn(String),
    /// Not logged in; what to do about it.
    LoggedOut(String),
    /// The check could not tell (it failed, timed out, or the CLI has no such check): why.
    Unknown(String),
}

impl Login {
    /// How long the answer is trusted.
    pub fn fresh_for(&self) -> Duration {
        match self {
            Login::LoggedIn(_) => LOGGED_IN_FRESH,
            Login::LoggedOut(_) | Login::Unknown(_) => LOGGED_OUT_FRESH,
        }
    }

    /// The availability of a CLI that is installed and new enough, for `agent` ("Claude
    /// Code"). A check that could not tell does not block the provider: it stays available,
    /// saying so, and a session shows the truth.
    pub fn availability(self, agent: &str) -> ProviderAvailability {
        match self {
            Login::LoggedIn(_) => ProviderAvailability::available(),
            Login::LoggedOut(what) => ProviderAvailability::with(
                AvailabilityStatus::Unrunnable,
                format!("{agent} is not logged in: {what}"),
            ),
            Login::Unknown(why) => ProviderAvailability::with(
                AvailabilityStatus::Available,
                format!("{UNCHECKED}{agent} login ({why})"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn logins_map_to_statuses() {
        assert_eq!(
            Login::LoggedIn("api_key".into()).availability("Tool"),
            ProviderAvailability::available()
        );
        let out = Login::LoggedOut("run `tool login`".into()).availability("Tool");
        assert_eq!(out.status, AvailabilityStatus::Unrunnable);
        assert_eq!(
            out.diagnostic.as_deref(),
            Some("Tool is not logged in: run `tool login`")
        );
        let unknown = Login::Unknown("timed out".into()).availability("Tool");
        assert_eq!(unknown.status, AvailabilityStatus::Available);
        assert_eq!(
            unknown.diagnostic.as_deref(),
            Some("could not check the Tool login (timed out)")
        );
        assert!(is_unchecked(&unknown));
        assert!(!is_unchecked(&out));
        assert!(!is_unchecked(&ProviderAvailability::available()));
        assert!(Login::LoggedOut(String::new()).fresh_for() < LOGGED_IN_FRESH);
    }
}
