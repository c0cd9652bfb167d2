//! What a user's own ACP agent supports, from its own `initialize`: persistence
//! (`loadSession` or `sessionCapabilities.resume`), the session list (`sessionCapabilities.list`)
//! and images (`promptCapabilities.image`), on top of the capabilities every ACP agent has
//! ([`crate::profile::GENERIC_CAPABILITIES`]). The agent is started for `initialize` once per
//! launch, binary and environment, and its answer remembered like an availability probe
//! ([`agent_bridge_core::probe_cache`]). A built-in profile declares its tested capabilities
//! instead. Closing sessions needs no declaration: `session/close` is always gated on what the
//! running agent advertised.

use crate::launch;
use crate::profile::{Profile, GENERIC_CAPABILITIES};
use crate::wire::AgentCapabilities;
use agent_bridge_core::probe_cache::{self, ProbeCache};
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_protocol::Capability;
use std::time::Duration;

/// Longest a connect waits for the probe (it goes on in the background; the next connect
/// finds its answer).
pub const PROBE_WAIT: Duration = Duration::from_secs(15);
/// How long an answer holds (the key changes with the binary and the environment).
const KNOWN_FOR: Duration = Duration::from_secs(24 * 3600);
/// How long a failed probe is remembered before it is tried again.
const FAILED_FOR: Duration = Duration::from_secs(30);

/// The Paseo capabilities of what an agent advertised.
pub fn capabilities(advertised: &AgentCapabilities) -> Vec<Capability> {
    let mut out = GENERIC_CAPABILITIES.to_vec();
    if advertised.prompt_capabilities.image {
        out.push(Capability::PromptImage);
    }
    if advertised.load_session || advertised.session("resume") {
        out.push(Capability::SessionPersistence);
    }
    if advertised.session("list") {
        out.push(Capability::SessionList);
    }
    out
}

/// Remembered `initialize` answers.
#[derive(Debug, Default)]
pub struct Advertised {
    known: ProbeCache<Option<Vec<Capability>>>,
}

impl Advertised {
    /// The capabilities of the agent `launch` runs: what its `initialize` advertised, or the
    /// generic ones when it cannot be started or does not answer within [`PROBE_WAIT`].
    pub async fn capabilities(
        &self,
        profile: &Profile,
        launch: &LaunchOverride,
    ) -> Vec<Capability> {
        let env = launch.effective_env(&Default::default());
        let key = format!(
            "acp-init|{}|{}|{}|{}|{}",
            profile.name,
            launch.program(&profile.program),
            launch.args.join(" "),
            probe_cache::binary_stamp(launch, &profile.program).await,
            probe_cache::env_digest(&env),
        );
        let run = probe(profile.clone(), launch.clone());
        let fresh_for =
            |v: &Option<Vec<Capability>>| if v.is_some() { KNOWN_FOR } else { FAILED_FOR };
        match self
            .known
            .get_within(&key, Some(PROBE_WAIT), fresh_for, run)
            .await
        {
            Some(Some(found)) => found,
            _ => {
                tracing::warn!(
                    provider = %profile.name,
                    "{} did not answer `initialize` within {} s; offering the generic ACP capabilities",
                    profile.label,
                    PROBE_WAIT.as_secs()
                );
                GENERIC_CAPABILITIES.to_vec()
            }
        }
    }
}

async fn probe(profile: Profile, launch: LaunchOverride) -> Option<Vec<Capability>> {
    let cwd = std::env::temp_dir().display().to_string();
    let spec = launch::spec(&profile, &launch, Some(&cwd), &Default::default());
    let run = async {
        let agent = match launch::start_for_query(&profile, &spec).await {
            Ok(agent) => agent,
            Err(e) => {
                tracing::warn!(provider = %profile.name, "cannot start the agent for `initialize`: {}", e.message);
                return None;
            }
        };
        let found = capabilities(&agent.init.agent_capabilities);
        tracing::info!(provider = %profile.name, ?found, "capabilities from the agent's `initialize`");
        agent.shutdown(None).await;
        Some(found)
    };
    tokio::time::timeout(launch::SETUP_TIMEOUT, run)
        .await
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn advertised(v: serde_json::Value) -> AgentCapabilities {
        serde_json::from_value(v).expect("agentCapabilities")
    }

    #[test]
    fn copilot_advertises_persistence_list_and_images() {
        let copilot = advertised(json!({"loadSession": true,
            "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
            "sessionCapabilities": {"close": {}, "list": {}}}));
        assert_eq!(
            capabilities(&copilot),
            vec![
                Capability::PromptMessage,
                Capability::SessionConfigure,
                Capability::Permission,
                Capability::PromptImage,
                Capability::SessionPersistence,
                Capability::SessionList,
            ]
        );
    }

    #[test]
    fn an_agent_that_advertises_nothing_gets_the_generic_ones() {
        assert_eq!(
            capabilities(&advertised(json!({}))),
            GENERIC_CAPABILITIES.to_vec()
        );
        let resume_only = advertised(json!({"sessionCapabilities": {"resume": {}, "list": null}}));
        assert_eq!(
            capabilities(&resume_only).last(),
            Some(&Capability::SessionPersistence)
        );
    }
}
