//! Claude Code's availability: the CLI is found, new enough, and logged in — told apart as
//! `missing`, `incompatible` and `unrunnable` (with what to do), without a model turn.

use crate::auth::{AuthCache, STATUS_WAIT};
use crate::launch;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability};

/// The version check and the login check, at once.
pub async fn check(auth: &AuthCache, launch: &LaunchOverride) -> ProviderAvailability {
    let (version, login) = tokio::join!(
        launch::probe_version(launch),
        auth.login(launch, STATUS_WAIT)
    );
    let text = match version {
        Err(launch::ProbeError::NotFound(msg)) => {
            return ProviderAvailability::with(
                AvailabilityStatus::Missing,
                format!(
                    "{msg}; install Claude Code with `npm install -g @anthropic-ai/claude-code`"
                ),
            )
        }
        Err(e) => return ProviderAvailability::with(AvailabilityStatus::Unrunnable, e.to_string()),
        Ok(text) => text,
    };
    match launch::parse_version(&text) {
        Some(v) if v >= launch::MIN_VERSION => {}
        Some(_) => {
            return ProviderAvailability::with(
                AvailabilityStatus::Incompatible,
                format!("Claude Code {text} is older than the oldest supported version {}; update with `npm install -g @anthropic-ai/claude-code@latest`", launch::MIN_VERSION),
            );
        }
        None => {
            return ProviderAvailability::with(
                AvailabilityStatus::Incompatible,
                format!("unrecognized `claude --version` output: {text}"),
            )
        }
    }
    login.availability("Claude Code")
}
