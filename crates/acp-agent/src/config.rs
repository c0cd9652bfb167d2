//! A session's configuration (`session.config`) as ACP session modes and config options, and
//! ACP's `session/set_mode` / `session/set_config_option` as `session.configure` changes.
//!
//! Config option ids: `mode`, `model`, `thought_level` (the thinking option), and
//! `option:<key>` for each provider control. A toggle control is a select of `true` / `false`
//! (a boolean option needs a client capability ACP marks optional).

use agent_bridge_protocol::{ProviderConfigChanges, ProviderConfigState, ProviderControl};
use agent_client_protocol_schema::v1::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelectOption, SessionMode, SessionModeState,
};
use serde_json::Value;

pub const MODE: &str = "mode";
pub const MODEL: &str = "model";
pub const THOUGHT_LEVEL: &str = "thought_level";
const CONTROL_PREFIX: &str = "option:";

/// The session's modes, when it has any.
pub fn modes(config: &ProviderConfigState) -> Option<SessionModeState> {
    if config.modes.is_empty() {
        return None;
    }
    let current = config
        .mode
        .clone()
        .unwrap_or_else(|| config.modes[0].id.clone());
    let modes = config
        .modes
        .iter()
        .map(|m| SessionMode::new(m.id.clone(), m.label.clone()).description(m.description.clone()))
        .collect();
    Some(SessionModeState::new(current, modes))
}

/// Every config option of the session, in a stable order: mode, model, thinking, controls.
pub fn options(config: &ProviderConfigState) -> Vec<SessionConfigOption> {
    let mut out = Vec::new();
    if let Some(mode) = &config.mode {
        let choices = config
            .modes
            .iter()
            .map(|m| choice(&m.id, &m.label, m.description.clone()))
            .collect::<Vec<_>>();
        if !choices.is_empty() {
            out.push(
                SessionConfigOption::select(MODE, "Mode", mode.clone(), choices)
                    .category(SessionConfigOptionCategory::Mode),
            );
        }
    }
    if let Some(model) = &config.model {
        let choices = config
            .models
            .iter()
            .filter(|m| m.is_selectable != Some(false))
            .map(|m| choice(&m.id, &m.label, m.description.clone()))
            .collect::<Vec<_>>();
        if !choices.is_empty() {
            out.push(
                SessionConfigOption::select(MODEL, "Model", model.clone(), choices)
                    .category(SessionConfigOptionCategory::Model),
            );
        }
    }
    if let Some(thinking) = &config.thinking_option {
        let choices = config
            .thinking_options
            .iter()
            .map(|t| choice(&t.id, &t.label, t.description.clone()))
            .collect::<Vec<_>>();
        if !choices.is_empty() {
            out.push(
                SessionConfigOption::select(THOUGHT_LEVEL, "Thinking", thinking.clone(), choices)
                    .category(SessionConfigOptionCategory::ThoughtLevel),
            );
        }
    }
    for control in &config.controls {
        let id = format!("{CONTROL_PREFIX}{}", control.key());
        let current = config.provider_options.get(control.key());
        out.push(match control {
            ProviderControl::Toggle {
                label,
                default_value,
                ..
            } => {
                let on = current.and_then(Value::as_bool).unwrap_or(*default_value);
                SessionConfigOption::select(
                    id,
                    label.clone(),
                    on.to_string(),
                    vec![choice("true", "On", None), choice("false", "Off", None)],
                )
            }
            ProviderControl::Select {
                label,
                default_value,
                choices,
                ..
            } => {
                let value = current
                    .and_then(Value::as_str)
                    .unwrap_or(default_value)
                    .to_string();
                let choices = choices
                    .iter()
                    .map(|c| choice(&c.value, &c.label, None))
                    .collect::<Vec<_>>();
                SessionConfigOption::select(id, label.clone(), value, choices)
            }
        });
    }
    out
}

fn choice(id: &str, label: &str, description: Option<String>) -> SessionConfigSelectOption {
    SessionConfigSelectOption::new(id.to_string(), label.to_string()).description(description)
}

/// Why a config change could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown config option `{0}`")]
    UnknownOption(String),
    #[error("config option `{0}` takes a value id")]
    NotAValueId(String),
}

/// `session/set_config_option` as a configure change.
pub fn change(
    config: Option<&ProviderConfigState>,
    config_id: &str,
    value: &SessionConfigOptionValue,
) -> Result<ProviderConfigChanges, ConfigError> {
    let id = value
        .as_value_id()
        .map(|v| v.0.to_string())
        .ok_or_else(|| ConfigError::NotAValueId(config_id.to_string()))?;
    let mut changes = ProviderConfigChanges::default();
    match config_id {
        MODE => changes.mode = Some(Some(id)),
        MODEL => changes.model = Some(Some(id)),
        THOUGHT_LEVEL => changes.thinking_option = Some(Some(id)),
        other => {
            let key = other
                .strip_prefix(CONTROL_PREFIX)
                .ok_or_else(|| ConfigError::UnknownOption(other.to_string()))?;
            let control = config
                .and_then(|c| c.controls.iter().find(|c| c.key() == key))
                .ok_or_else(|| ConfigError::UnknownOption(other.to_string()))?;
            let value = match control {
                ProviderControl::Toggle { .. } => Value::Bool(id == "true"),
                ProviderControl::Select { .. } => Value::String(id),
            };
            changes.provider_options = Some([(key.to_string(), value)].into_iter().collect());
        }
    }
    Ok(changes)
}

/// `session/set_mode` as a configure change.
pub fn mode_change(mode: &str) -> ProviderConfigChanges {
    ProviderConfigChanges {
        mode: Some(Some(mode.to_string())),
        ..Default::default()
    }
}
