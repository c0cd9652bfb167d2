//! Modes, models, thinking options and the committed config of a Codex session.
//!
//! Modes are the ids Paseo users know from its built-in Codex provider, plus `ask` for machines
//! where Codex's Linux sandbox (bubblewrap) cannot run:
//! - `read-only`: approval `on-request`, sandbox `read-only`;
//! - `auto`: approval `on-request`, sandbox `workspace-write`;
//! - `full-access`: approval `never`, sandbox `danger-full-access` (unattended);
//! - `ask`: approval `untrusted` (every non-trivial command asks), no sandbox.

use crate::options::{self, Controls};
use crate::wire::params::SandboxPolicy;
use crate::wire::thread::Model;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    ProviderConfigChanges, ProviderConfigState, ProviderError, ProviderMode, ProviderModel,
    ProviderThinkingOption,
};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeDef {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    /// `approvalPolicy` (`untrusted | on-request | never`).
    pub approval: &'static str,
    /// `sandbox` of `thread/start` (`read-only | workspace-write | danger-full-access`).
    pub sandbox: &'static str,
    pub sandboxed: bool,
    pub unattended: bool,
}

pub const MODES: [ModeDef; 4] = [
    ModeDef {
        id: "read-only",
        label: "Read only",
        description: "Codex can read files; edits and commands outside the read-only sandbox ask first.",
        approval: "on-request",
        sandbox: "read-only",
        sandboxed: true,
        unattended: false,
    },
    ModeDef {
        id: "auto",
        label: "Auto",
        description: "Codex edits and runs commands inside the workspace sandbox; anything beyond it asks first.",
        approval: "on-request",
        sandbox: "workspace-write",
        sandboxed: true,
        unattended: false,
    },
    ModeDef {
        id: "full-access",
        label: "Full access",
        description: "No sandbox and no approvals: Codex edits files and runs commands on its own.",
        approval: "never",
        sandbox: "danger-full-access",
        sandboxed: false,
        unattended: true,
    },
    ModeDef {
        id: "ask",
        label: "Ask",
        description: "No sandbox; Codex asks before running any command that is not known to be safe.",
        approval: "untrusted",
        sandbox: "danger-full-access",
        sandboxed: false,
        unattended: false,
    },
];

pub fn mode(id: &str) -> Option<&'static ModeDef> {
    MODES.iter().find(|m| m.id == id)
}

impl ModeDef {
    /// The mode's sandbox policy; `network_access` counts only for the sandboxed modes.
    pub fn sandbox_policy(&self, network_access: bool) -> SandboxPolicy {
        match self.sandbox {
            "read-only" => SandboxPolicy::ReadOnly { network_access },
            "workspace-write" => SandboxPolicy::WorkspaceWrite { network_access },
            _ => SandboxPolicy::DangerFullAccess,
        }
    }
}

/// The Paseo modes; with `sandbox_problem`, sandboxed modes say they cannot run commands here.
pub fn modes(sandbox_problem: Option<&str>) -> Vec<ProviderMode> {
    MODES
        .iter()
        .map(|m| ProviderMode {
            id: m.id.into(),
            label: m.label.into(),
            description: Some(match (m.sandboxed, sandbox_problem) {
                (true, Some(problem)) => format!(
                    "{} The Codex sandbox cannot run on this machine ({problem}), so sandboxed commands fail; use Ask or Full access.",
                    m.description
                ),
                _ => m.description.to_string(),
            }),
            icon: None,
            color_tier: None,
            is_unattended: m.unattended.then_some(true),
        })
        .collect()
}

/// The network access of an effective sandbox (`{type, networkAccess}`): `None` outside the
/// sandboxed modes.
pub fn network_of(sandbox: &Value) -> Option<bool> {
    match sandbox.get("type").and_then(Value::as_str)? {
        "readOnly" | "workspaceWrite" => Some(
            sandbox
                .get("networkAccess")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        ),
        _ => None,
    }
}

/// The mode matching effective settings (`approvalPolicy` string, `sandbox` `{type}` object or
/// kebab-case string), if one does.
pub fn mode_of(approval: &Value, sandbox: &Value) -> Option<&'static str> {
    let approval = approval.as_str()?;
    let sandbox = match sandbox {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("type").and_then(Value::as_str)? {
            "readOnly" => "read-only".into(),
            "workspaceWrite" => "workspace-write".into(),
            "dangerFullAccess" => "danger-full-access".into(),
            other => other.to_string(),
        },
        _ => return None,
    };
    MODES
        .iter()
        .find(|m| m.approval == approval && m.sandbox == sandbox)
        .map(|m| m.id)
}

fn thinking_of(m: &Model) -> Vec<ProviderThinkingOption> {
    m.supported_reasoning_efforts
        .iter()
        .map(|e| ProviderThinkingOption {
            id: e.reasoning_effort.clone(),
            label: e.reasoning_effort.clone(),
            description: e.description.clone(),
            is_default: (m.default_reasoning_effort.as_deref() == Some(&e.reasoning_effort))
                .then_some(true),
            metadata: None,
        })
        .collect()
}

/// Paseo models from `model/list`, plus the configured model when the list lacks it (custom
/// providers).
pub fn models(list: &[Model], configured: Option<&str>) -> Vec<ProviderModel> {
    let mut out: Vec<ProviderModel> = list
        .iter()
        .filter(|m| !m.hidden)
        .map(|m| {
            let thinking = thinking_of(m);
            ProviderModel {
                id: m.id.clone(),
                label: m.display_name.clone().unwrap_or_else(|| m.id.clone()),
                description: m.description.clone().filter(|d| !d.is_empty()),
                is_default: m.is_default.then_some(true),
                default_thinking_option_id: m.default_reasoning_effort.clone(),
                thinking_options: (!thinking.is_empty()).then_some(thinking),
                ..Default::default()
            }
        })
        .collect();
    if let Some(c) = configured.filter(|c| !out.iter().any(|m| m.id == *c)) {
        out.insert(
            0,
            ProviderModel {
                id: c.to_string(),
                label: c.to_string(),
                description: Some("The model configured in Codex's config.toml".into()),
                ..Default::default()
            },
        );
    }
    out
}

/// The model Codex uses by default: config.toml's `model`, else the list's default.
pub fn default_model(list: &[ProviderModel], configured: Option<&str>) -> Option<String> {
    configured.map(str::to_string).or_else(|| {
        list.iter()
            .find(|m| m.is_default == Some(true))
            .map(|m| m.id.clone())
    })
}

/// The committed configuration of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    pub model: Option<String>,
    pub effort: Option<String>,
    pub mode: Option<String>,
    pub models: Vec<ProviderModel>,
    pub modes: Vec<ProviderMode>,
    /// What `null` resets to.
    pub default_model: Option<String>,
    pub default_mode: Option<String>,
    /// The per-session controls (`providerOptions`, see [`crate::options`]).
    pub controls: Controls,
    /// What their `null` resets to (`config.toml`'s settings, else Codex's defaults).
    pub default_controls: Controls,
}

impl SessionConfig {
    pub fn thinking_options(&self) -> Vec<ProviderThinkingOption> {
        self.model
            .as_ref()
            .and_then(|id| self.models.iter().find(|m| &m.id == id))
            .and_then(|m| m.thinking_options.clone())
            .unwrap_or_default()
    }

    pub fn state(&self) -> ProviderConfigState {
        ProviderConfigState {
            model: self.model.clone(),
            mode: self.mode.clone(),
            thinking_option: self.effort.clone(),
            models: self.models.clone(),
            modes: self.modes.clone(),
            thinking_options: self.thinking_options(),
            controls: options::controls(&self.default_controls),
            provider_options: self.controls.provider_options(),
            settings: Vec::new(),
        }
    }

    /// The sandbox probe answered after the session opened with a config that assumed the
    /// sandbox works: with a problem, the sandboxed modes say so and an unconfigured default
    /// mode becomes `ask`. True when that changed the config.
    pub fn sandbox_answered(
        &mut self,
        problem: Option<&str>,
        default_mode_configured: bool,
    ) -> bool {
        if problem.is_none() {
            return false;
        }
        self.modes = modes(problem);
        if !default_mode_configured {
            self.default_mode = Some("ask".into());
        }
        true
    }

    /// Applies every change or none.
    pub fn apply(&self, changes: &ProviderConfigChanges) -> Result<SessionConfig, ProviderError> {
        let mut next = self.clone();
        if let Some(model) = &changes.model {
            let target = model.clone().or_else(|| self.default_model.clone());
            if let Some(id) = &target {
                if !self.models.iter().any(|m| &m.id == id) {
                    return Err(ProviderError::new(format!("unknown Codex model `{id}`"))
                        .with_code(ErrorCode::InvalidModel));
                }
            }
            next.model = target;
            // An effort the new model does not offer falls back to its default.
            let options = next.thinking_options();
            if next
                .effort
                .as_ref()
                .is_some_and(|e| !options.iter().any(|o| &o.id == e))
            {
                next.effort = next
                    .model
                    .as_ref()
                    .and_then(|id| self.models.iter().find(|m| &m.id == id))
                    .and_then(|m| m.default_thinking_option_id.clone());
            }
        }
        if let Some(mode_change) = &changes.mode {
            let target = mode_change.clone().or_else(|| self.default_mode.clone());
            if let Some(id) = &target {
                if mode(id).is_none() {
                    return Err(ProviderError::new(format!("unknown Codex mode `{id}`"))
                        .with_code(ErrorCode::InvalidMode));
                }
            }
            next.mode = target;
        }
        if let Some(effort) = &changes.thinking_option {
            if let Some(id) = effort {
                let options = next.thinking_options();
                if !options.iter().any(|o| &o.id == id) {
                    return Err(ProviderError::new(format!(
                        "reasoning effort `{id}` is not offered by model `{}`",
                        next.model.as_deref().unwrap_or("(default)")
                    ))
                    .with_code(ErrorCode::InvalidThinkingOption));
                }
            }
            next.effort = effort.clone();
        }
        if let Some(opts) = &changes.provider_options {
            next.controls = next.controls.apply(opts, &self.default_controls)?;
        }
        Ok(next)
    }
}

#[cfg(test)]
impl SessionConfig {
    /// A session's config with only model, effort and mode set (the session tests' start).
    pub(crate) fn for_test(model: &str, effort: Option<&str>, mode: &str) -> SessionConfig {
        SessionConfig {
            model: Some(model.into()),
            effort: effort.map(str::to_string),
            mode: Some(mode.into()),
            models: Vec::new(),
            modes: Vec::new(),
            default_model: None,
            default_mode: None,
            controls: Default::default(),
            default_controls: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn listed() -> Vec<Model> {
        serde_json::from_value(json!([
            {"id": "big", "displayName": "Big", "description": "", "hidden": false, "isDefault": true,
             "defaultReasoningEffort": "medium",
             "supportedReasoningEfforts": [{"reasoningEffort": "low", "description": "l"},
                                           {"reasoningEffort": "medium", "description": "m"},
                                           {"reasoningEffort": "xhigh", "description": "x"}]},
            {"id": "small", "displayName": "Small", "description": "s", "hidden": false, "isDefault": false,
             "defaultReasoningEffort": "low",
             "supportedReasoningEfforts": [{"reasoningEffort": "low", "description": "l"}]},
            {"id": "secret", "displayName": "Secret", "description": "", "hidden": true, "isDefault": false,
             "defaultReasoningEffort": "low", "supportedReasoningEfforts": []}
        ]))
        .unwrap()
    }

    fn config() -> SessionConfig {
        let models = models(&listed(), Some("mock-model"));
        SessionConfig {
            model: Some("big".into()),
            effort: Some("xhigh".into()),
            mode: Some("auto".into()),
            models,
            modes: modes(None),
            default_model: Some("mock-model".into()),
            default_mode: Some("auto".into()),
            controls: Controls::default(),
            default_controls: Controls::default(),
        }
    }

    #[test]
    fn models_keep_visible_ones_and_add_the_configured_model() {
        let ids: Vec<String> = models(&listed(), Some("mock-model"))
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, vec!["mock-model", "big", "small"]);
        insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("models", models(&listed(), None)); });
    }

    #[test]
    fn modes_match_effective_settings() {
        assert_eq!(
            mode_of(&json!("never"), &json!({"type": "dangerFullAccess"})),
            Some("full-access")
        );
        assert_eq!(
            mode_of(
                &json!("on-request"),
                &json!({"type": "workspaceWrite", "networkAccess": false})
            ),
            Some("auto")
        );
        assert_eq!(
            mode_of(&json!("on-request"), &json!("read-only")),
            Some("read-only")
        );
        assert_eq!(
            mode_of(&json!("untrusted"), &json!({"type": "dangerFullAccess"})),
            Some("ask")
        );
        assert_eq!(
            mode_of(&json!({"granular": {}}), &json!({"type": "readOnly"})),
            None
        );
        let described = modes(Some("bwrap missing"));
        assert!(described[0]
            .description
            .as_deref()
            .unwrap_or("")
            .contains("bwrap missing"));
        assert!(!described[2]
            .description
            .as_deref()
            .unwrap_or("")
            .contains("bwrap missing"));
        assert_eq!(described[2].is_unattended, Some(true));
    }

    #[test]
    fn configure_is_all_or_nothing() {
        let c = config();
        let bad = ProviderConfigChanges {
            mode: Some(Some("full-access".into())),
            model: Some(Some("nope".into())),
            ..Default::default()
        };
        assert!(c.apply(&bad).is_err());
        let bad_effort = ProviderConfigChanges {
            model: Some(Some("small".into())),
            thinking_option: Some(Some("xhigh".into())),
            ..Default::default()
        };
        assert!(c.apply(&bad_effort).is_err());
        let ok = ProviderConfigChanges {
            model: Some(Some("small".into())),
            mode: Some(Some("full-access".into())),
            ..Default::default()
        };
        let next = c.apply(&ok).unwrap();
        assert_eq!(next.model.as_deref(), Some("small"));
        // xhigh is not offered by `small`: its default takes over.
        assert_eq!(next.effort.as_deref(), Some("low"));
        assert_eq!(next.mode.as_deref(), Some("full-access"));
        let reset = ProviderConfigChanges {
            model: Some(None),
            mode: Some(None),
            thinking_option: Some(None),
            ..Default::default()
        };
        let back = next.apply(&reset).unwrap();
        assert_eq!(
            (
                back.model.as_deref(),
                back.mode.as_deref(),
                back.effort.as_deref()
            ),
            (Some("mock-model"), Some("auto"), None)
        );
        let mut opts = serde_json::Map::new();
        opts.insert("fast".into(), json!(true));
        let unknown = ProviderConfigChanges {
            provider_options: Some(opts),
            ..Default::default()
        };
        assert!(c.apply(&unknown).is_err());
    }
}
