//! Provider capabilities (`PROVIDER_CAPABILITIES`) and their negotiation.

use serde::{Deserialize, Serialize};

/// A capability a provider connection may implement. Hosts may offer names this version does not
/// know; those are kept as strings by callers and dropped by [`negotiate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Capability {
    #[serde(rename = "prompt.message")]
    PromptMessage,
    #[serde(rename = "prompt.command")]
    PromptCommand,
    #[serde(rename = "prompt.image")]
    PromptImage,
    #[serde(rename = "prompt.output_schema")]
    PromptOutputSchema,
    #[serde(rename = "prompt.steer")]
    PromptSteer,
    #[serde(rename = "session.archive")]
    SessionArchive,
    #[serde(rename = "session.unarchive")]
    SessionUnarchive,
    #[serde(rename = "session.configure")]
    SessionConfigure,
    #[serde(rename = "session.list")]
    SessionList,
    #[serde(rename = "session.persistence")]
    SessionPersistence,
    #[serde(rename = "session.revert.conversation")]
    SessionRevertConversation,
    #[serde(rename = "session.revert.files")]
    SessionRevertFiles,
    #[serde(rename = "session.revert.both")]
    SessionRevertBoth,
    #[serde(rename = "session.subsession")]
    SessionSubsession,
    #[serde(rename = "permission")]
    Permission,
    #[serde(rename = "permission.tool_policy")]
    PermissionToolPolicy,
    #[serde(rename = "timeline.plugin")]
    TimelinePlugin,
    #[serde(rename = "session.can_stop_runtime")]
    SessionCanStopRuntime,
}

impl Capability {
    pub const ALL: [Capability; 18] = [
        Capability::PromptMessage,
        Capability::PromptCommand,
        Capability::PromptImage,
        Capability::PromptOutputSchema,
        Capability::PromptSteer,
        Capability::SessionArchive,
        Capability::SessionUnarchive,
        Capability::SessionConfigure,
        Capability::SessionList,
        Capability::SessionPersistence,
        Capability::SessionRevertConversation,
        Capability::SessionRevertFiles,
        Capability::SessionRevertBoth,
        Capability::SessionSubsession,
        Capability::Permission,
        Capability::PermissionToolPolicy,
        Capability::TimelinePlugin,
        Capability::SessionCanStopRuntime,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Capability::PromptMessage => "prompt.message",
            Capability::PromptCommand => "prompt.command",
            Capability::PromptImage => "prompt.image",
            Capability::PromptOutputSchema => "prompt.output_schema",
            Capability::PromptSteer => "prompt.steer",
            Capability::SessionArchive => "session.archive",
            Capability::SessionUnarchive => "session.unarchive",
            Capability::SessionConfigure => "session.configure",
            Capability::SessionList => "session.list",
            Capability::SessionPersistence => "session.persistence",
            Capability::SessionRevertConversation => "session.revert.conversation",
            Capability::SessionRevertFiles => "session.revert.files",
            Capability::SessionRevertBoth => "session.revert.both",
            Capability::SessionSubsession => "session.subsession",
            Capability::Permission => "permission",
            Capability::PermissionToolPolicy => "permission.tool_policy",
            Capability::TimelinePlugin => "timeline.plugin",
            Capability::SessionCanStopRuntime => "session.can_stop_runtime",
        }
    }

    /// Parses a capability name; `None` for a name this version does not know.
    pub fn parse(name: &str) -> Option<Capability> {
        Capability::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `negotiateProviderCapabilities`: offered ∩ known ∩ implemented, in offered order, without
/// duplicates.
pub fn negotiate(offered: &[String], implemented: &[Capability]) -> Vec<Capability> {
    let mut out: Vec<Capability> = Vec::new();
    for name in offered {
        if let Some(cap) = Capability::parse(name) {
            if implemented.contains(&cap) && !out.contains(&cap) {
                out.push(cap);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn negotiation_keeps_offered_order_and_drops_unknown_and_duplicates() {
        let offered: Vec<String> = [
            "prompt.steer",
            "bogus",
            "prompt.message",
            "prompt.steer",
            "permission",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let implemented = [Capability::PromptMessage, Capability::PromptSteer];
        assert_eq!(
            negotiate(&offered, &implemented),
            vec![Capability::PromptSteer, Capability::PromptMessage]
        );
    }

    #[test]
    fn names_round_trip() {
        for cap in Capability::ALL {
            let json = serde_json::to_string(&cap).unwrap();
            assert_eq!(json, format!("\"{}\"", cap.as_str()));
            assert_eq!(Capability::parse(cap.as_str()), Some(cap));
        }
    }
}
