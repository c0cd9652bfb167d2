//! What differs per agent in a soak: the CLI to run against the mock (none for the demo), the
//! mode that asks before a command, and the prompts that make a turn reply, stream long, run
//! a tool or crash. The mock's conventions: run `CMD` makes the model call the shell tool,
//! `SLOW` streams a long reply (see tests/mock-llm/README.md); the demo reads the same words
//! itself and `CRASH` kills its runtime.

use super::plan::Action;

/// One provider's soak settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub provider: String,
    /// The pinned CLI (its `.cache/clis` bin and `mock_llm::Cli` name); `None`: the demo.
    pub cli: Option<&'static str>,
    /// The mode the sessions open in: one that asks before a file-writing command.
    pub ask_mode: Option<&'static str>,
    /// Whether that mode asks before the soak's tool command; when it does not, a kill
    /// planned at a permission kills a streaming turn instead.
    pub asks: bool,
    /// Variables added to the CLI's hermetic environment.
    pub extra_env: &'static [(&'static str, &'static str)],
}

/// The soak settings of a provider of plugin.json, by id and agent family; `None` when the
/// soak does not know how to run it.
pub fn profile(provider: &str, agent: &str) -> Option<Profile> {
    let (cli, ask_mode, extra_env): (_, _, &'static [(&str, &str)]) = match (provider, agent) {
        (_, "demo") => (None, Some("ask"), &[]),
        (_, "claude") => (Some("claude"), Some("default"), &[]),
        (_, "codex") => (Some("codex"), Some("ask"), &[]),
        // Gemini refuses its modes in an untrusted folder.
        ("gemini-bridge", _) => (
            Some("gemini"),
            None,
            &[("GEMINI_CLI_TRUST_WORKSPACE", "true")],
        ),
        ("qwen-bridge", _) => (Some("qwen"), None, &[]),
        ("opencode-bridge", _) => (Some("opencode"), None, &[]),
        ("claude-acp-bridge", _) => (Some("claude-agent-acp"), None, &[]),
        ("codex-acp-bridge", _) => (Some("codex-acp"), Some("read-only"), &[]),
        // Their default modes ask even before `echo` (../shared/spec/real-cli-offline.md).
        ("copilot-bridge", _) => (Some("copilot"), None, &[]),
        ("kilo-bridge", _) => (Some("kilo"), None, &[]),
        ("cline-bridge", _) => (Some("cline"), None, &[]),
        ("kimi-bridge", _) => (Some("kimi"), None, &[]),
        ("droid-bridge", _) => (Some("droid"), None, &[]),
        ("grok-bridge", _) => (Some("grok"), None, &[]),
        ("pi-bridge", _) => (Some("pi-acp"), None, &[]),
        ("vibe-bridge", _) => (Some("vibe-acp"), Some("ask"), &[]),
        ("deepagents-bridge", _) => (Some("dcode"), Some("ask"), &[]),
        ("openhands-bridge", _) => (Some("openhands"), Some("always-ask"), &[]),
        _ => return None,
    };
    Some(Profile {
        provider: provider.to_string(),
        cli,
        ask_mode,
        // codex-acp's read-only mode asks only for a command that wants out of its sandbox.
        asks: provider != "codex-acp-bridge",
        extra_env,
    })
}

impl Profile {
    /// The prompt of turn `turn` of session `session`.
    pub fn prompt(&self, action: Action, session: &str, turn: usize) -> String {
        let tool = format!("please run `touch soak-{session}-{turn}.txt`");
        let slow = "SLOW please write a long text".to_string();
        match (action, self.cli) {
            (Action::Text, _) => "say hi".into(),
            (Action::Tool { .. }, _) => tool,
            (Action::Interrupt { .. }, _) => slow,
            (Action::Kill { .. }, None) => "CRASH please".into(),
            (Action::Kill { .. }, Some(_)) if self.kills_at_permission(action) => tool,
            (Action::Kill { .. }, Some(_)) => slow,
        }
    }

    /// The kill waits for the turn's permission request (else for its first streamed item).
    pub fn kills_at_permission(&self, action: Action) -> bool {
        matches!(
            action,
            Action::Kill {
                at_permission: true,
                ..
            }
        ) && self.asks
    }

    /// True when a kill is the soak's to do (a CLI process); the demo kills itself.
    pub fn kills_a_process(&self) -> bool {
        self.cli.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn every_provider_of_plugin_json_has_a_profile() {
        let text = include_str!("../../../../plugin.json");
        let manifest: serde_json::Value = serde_json::from_str(text).expect("plugin.json");
        for p in manifest["providers"].as_array().into_iter().flatten() {
            let (id, agent) = (
                p["id"].as_str().unwrap_or_default(),
                p["agent"].as_str().unwrap_or_default(),
            );
            assert!(profile(id, agent).is_some(), "{id}");
        }
        assert_eq!(profile("goose", "acp"), None);
    }

    #[test]
    fn prompts_say_what_the_turn_does() {
        let demo = profile("demo", "demo").expect("demo");
        let claude = profile("claude-bridge", "claude").expect("claude");
        let kill = Action::Kill {
            at_permission: false,
            after_ms: 0,
        };
        assert_eq!(demo.prompt(kill, "s1", 3), "CRASH please");
        assert!(claude.prompt(kill, "s1", 3).starts_with("SLOW"));
        let at_permission = Action::Kill {
            at_permission: true,
            after_ms: 0,
        };
        assert_eq!(
            claude.prompt(at_permission, "s1", 3),
            "please run `touch soak-s1-3.txt`"
        );
        assert!(!demo.kills_a_process() && claude.kills_a_process());
        let codex_acp = profile("codex-acp-bridge", "acp").expect("codex-acp");
        assert!(codex_acp.prompt(at_permission, "s1", 3).starts_with("SLOW"));
    }
}
