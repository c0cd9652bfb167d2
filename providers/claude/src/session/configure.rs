//! `session.configure`: validate every key against what the CLI offers, then apply them live
//! (`set_model`, `set_permission_mode`, `apply_flag_settings {effortLevel}`, and the
//! `providerOptions` of [`crate::options`]), all or nothing; a thinking change the CLI cannot
//! apply live, or a change of additional folders, restarts it with `--resume`.

use crate::catalog;
use crate::control::control_error;
use crate::control::ControlError;
use crate::session::{ClaudeSession, ConfigSnapshot};
use agent_bridge_core::lifecycle::lock;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ProviderConfigChanges, ProviderError};
use serde_json::{json, Value};

impl ClaudeSession {
    pub(crate) fn validate(
        &self,
        s: &ConfigSnapshot,
        changes: &ProviderConfigChanges,
    ) -> Result<ConfigSnapshot, ProviderError> {
        let mut next = s.clone();
        if let Some(model) = &changes.model {
            let id = model.clone().unwrap_or_else(|| "default".into());
            if !s.models.iter().any(|m| m.value == id) {
                return Err(ProviderError::new(format!("unknown Claude model `{id}`"))
                    .with_code(ErrorCode::InvalidModel));
            }
            next.model = id;
        }
        if let Some(mode) = &changes.mode {
            let id = mode.clone().unwrap_or_else(|| catalog::DEFAULT_MODE.into());
            if !catalog::MODES.contains(&id.as_str()) {
                return Err(
                    ProviderError::new(format!("unknown permission mode `{id}`"))
                        .with_code(ErrorCode::InvalidMode),
                );
            }
            next.mode = id;
        }
        let levels = catalog::levels_of(&next.models, &next.model);
        if let Some(thinking) = &changes.thinking_option {
            if let Some(level) = thinking {
                if !levels.iter().any(|l| l == level) {
                    return Err(ProviderError::new(format!(
                        "model `{}` has no thinking option `{level}`",
                        next.model
                    ))
                    .with_code(ErrorCode::InvalidThinkingOption));
                }
            }
            next.thinking = thinking.clone();
        } else if next.thinking.as_ref().is_some_and(|t| !levels.contains(t)) {
            next.thinking = None;
        }
        if let Some(options) = &changes.provider_options {
            next.options = s.options.changed(options)?;
        }
        for (key, value) in changes.settings.iter().flatten() {
            if !value.is_null() {
                return Err(ProviderError::new(format!("unknown setting `{key}`"))
                    .with_code(ErrorCode::InvalidSetting));
            }
        }
        Ok(next)
    }

    /// Applies validated changes in order; on a refusal, puts back what was already applied.
    /// Returns [`Applied::NeedsRespawn`] when the CLI cannot change thinking live, or the
    /// additional folders change (nothing was applied then: a restart takes every flag at
    /// once).
    pub(crate) async fn apply(
        &self,
        current: &ConfigSnapshot,
        next: &ConfigSnapshot,
        changes: &ProviderConfigChanges,
    ) -> Result<Applied, ProviderError> {
        lock(&self.runtime.shared).configuring = true;
        if current.options.needs_restart(&next.options) {
            // A restart takes every flag at once: nothing is applied live.
            return Ok(Applied::NeedsRespawn);
        }
        let channel = &self.runtime.channel;
        let mut applied: Vec<Value> = Vec::new();
        if next.thinking != current.thinking && changes.thinking_option.is_some() {
            let step = json!({"subtype": "apply_flag_settings", "settings": {"effortLevel": next.thinking}});
            match channel.request(step).await {
                Ok(_) => applied.push(json!({"subtype": "apply_flag_settings", "settings": {"effortLevel": current.thinking}})),
                Err(ControlError::Refused { message, .. }) if message.contains("Unsupported control request") => {
                    return Ok(Applied::NeedsRespawn);
                }
                Err(e) => return Err(control_error(e)),
            }
        }
        let mut steps: Vec<(Value, Value)> = Vec::new();
        if next.model != current.model {
            let model = if next.model == "default" {
                Value::Null
            } else {
                json!(next.model)
            };
            let undo = if current.model == "default" {
                Value::Null
            } else {
                json!(current.model)
            };
            steps.push((
                json!({"subtype": "set_model", "model": model}),
                json!({"subtype": "set_model", "model": undo}),
            ));
        }
        if next.mode != current.mode {
            steps.push((
                json!({"subtype": "set_permission_mode", "mode": next.mode}),
                json!({"subtype": "set_permission_mode", "mode": current.mode}),
            ));
        }
        steps.extend(current.options.live_steps(&next.options));
        for (step, undo) in steps {
            if let Err(e) = channel.request(step).await {
                for undo in applied.into_iter().rev() {
                    if let Err(e) = channel.request(undo).await {
                        tracing::warn!("rolling back a configure step failed: {e}");
                    }
                }
                return Err(control_error(e));
            }
            applied.push(undo);
        }
        Ok(Applied::Live)
    }
}

/// How a configure took effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    Live,
    NeedsRespawn,
}
