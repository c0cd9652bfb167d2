//! The per-session Codex controls (`providerOptions` keys, drawn in Paseo's composer):
//! - `webSearch` (`disabled | cached | live`): the thread's `web_search` config. Codex reads it
//!   when a thread loads, so a change re-loads the thread (see `session::thread_config`).
//!   Under the `full-access` mode Codex itself searches live unless it is `disabled`.
//! - `networkAccess` (bool): `networkAccess` of the sandbox policy of the sandboxed modes
//!   (`read-only`, `auto`), sent with the next `turn/start`. The unsandboxed modes
//!   (`full-access`, `ask`) always reach the network; there the value is kept for when a
//!   sandboxed mode is chosen.
//! - `reasoningSummary` (`auto | concise | detailed | none`): `summary` of the next
//!   `turn/start` (the model request's `reasoning.summary`; `none` sends none).

use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ControlChoice, JsonMap, ProviderControl, ProviderError};
use serde_json::Value;

pub const WEB_SEARCH: &str = "webSearch";
pub const NETWORK_ACCESS: &str = "networkAccess";
pub const REASONING_SUMMARY: &str = "reasoningSummary";

const WEB_SEARCH_MODES: [(&str, &str); 3] =
    [("disabled", "Off"), ("cached", "Cached"), ("live", "Live")];
const SUMMARIES: [(&str, &str); 4] = [
    ("auto", "Auto"),
    ("concise", "Concise"),
    ("detailed", "Detailed"),
    ("none", "None"),
];

/// The values of the controls a session runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controls {
    pub web_search: String,
    pub network_access: bool,
    pub reasoning_summary: String,
}

impl Default for Controls {
    /// Codex's own defaults (no `config.toml` setting).
    fn default() -> Self {
        Controls {
            web_search: "cached".into(),
            network_access: false,
            reasoning_summary: "auto".into(),
        }
    }
}

fn choices(values: &[(&str, &str)]) -> Vec<ControlChoice> {
    values
        .iter()
        .map(|(value, label)| ControlChoice {
            value: (*value).into(),
            label: (*label).into(),
        })
        .collect()
}

fn check(key: &str, value: &Value, known: &[(&str, &str)]) -> Result<String, ProviderError> {
    let names = || {
        known
            .iter()
            .map(|(v, _)| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match value.as_str() {
        Some(s) if known.iter().any(|(v, _)| *v == s) => Ok(s.to_string()),
        _ => Err(ProviderError::new(format!(
            "providerOptions.{key} must be one of {}, not {value}",
            names()
        ))
        .with_code(ErrorCode::InvalidProviderOption)),
    }
}

impl Controls {
    /// The defaults `config.toml` gives (`config/read`'s `config`), else Codex's own.
    pub fn configured(config: &Value) -> Controls {
        let mut c = Controls::default();
        if let Some(mode) = config["web_search"]
            .as_str()
            .filter(|m| WEB_SEARCH_MODES.iter().any(|(v, _)| v == m))
        {
            c.web_search = mode.into();
        }
        if let Some(on) = config["sandbox_workspace_write"]["network_access"].as_bool() {
            c.network_access = on;
        }
        if let Some(s) = config["model_reasoning_summary"]
            .as_str()
            .filter(|s| SUMMARIES.iter().any(|(v, _)| v == s))
        {
            c.reasoning_summary = s.into();
        }
        c
    }

    /// These values with `options` applied (`null` = back to `defaults`); an unknown key or a
    /// bad value refuses them all.
    pub fn apply(&self, options: &JsonMap, defaults: &Controls) -> Result<Controls, ProviderError> {
        let mut next = self.clone();
        for (key, value) in options {
            match (key.as_str(), value) {
                (WEB_SEARCH, Value::Null) => next.web_search = defaults.web_search.clone(),
                (WEB_SEARCH, v) => next.web_search = check(key, v, &WEB_SEARCH_MODES)?,
                (NETWORK_ACCESS, Value::Null) => next.network_access = defaults.network_access,
                (NETWORK_ACCESS, Value::Bool(on)) => next.network_access = *on,
                (NETWORK_ACCESS, v) => {
                    return Err(ProviderError::new(format!(
                        "providerOptions.{NETWORK_ACCESS} must be true or false, not {v}"
                    ))
                    .with_code(ErrorCode::InvalidProviderOption))
                }
                (REASONING_SUMMARY, Value::Null) => {
                    next.reasoning_summary = defaults.reasoning_summary.clone()
                }
                (REASONING_SUMMARY, v) => next.reasoning_summary = check(key, v, &SUMMARIES)?,
                (other, _) => {
                    return Err(ProviderError::new(format!(
                        "codex-bridge has no provider option `{other}`; it takes `{WEB_SEARCH}`, `{NETWORK_ACCESS}` and `{REASONING_SUMMARY}`"
                    ))
                    .with_code(ErrorCode::InvalidProviderOption))
                }
            }
        }
        Ok(next)
    }

    /// The values as `providerOptions`.
    pub fn provider_options(&self) -> JsonMap {
        let mut out = JsonMap::new();
        out.insert(WEB_SEARCH.into(), Value::String(self.web_search.clone()));
        out.insert(NETWORK_ACCESS.into(), Value::Bool(self.network_access));
        out.insert(
            REASONING_SUMMARY.into(),
            Value::String(self.reasoning_summary.clone()),
        );
        out
    }
}

/// The composer controls; each shows `defaults` when its key has no value.
pub fn controls(defaults: &Controls) -> Vec<ProviderControl> {
    vec![
        ProviderControl::Select {
            key: WEB_SEARCH.into(),
            label: "Web search".into(),
            icon: Some("Globe".into()),
            default_value: defaults.web_search.clone(),
            choices: choices(&WEB_SEARCH_MODES),
        },
        ProviderControl::Toggle {
            key: NETWORK_ACCESS.into(),
            label: "Network in sandbox".into(),
            icon: Some("Network".into()),
            default_value: defaults.network_access,
        },
        ProviderControl::Select {
            key: REASONING_SUMMARY.into(),
            label: "Reasoning summary".into(),
            icon: Some("Brain".into()),
            default_value: defaults.reasoning_summary.clone(),
            choices: choices(&SUMMARIES),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn opts(v: Value) -> JsonMap {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn config_toml_sets_the_defaults() {
        assert_eq!(Controls::configured(&json!({})), Controls::default());
        let c = Controls::configured(&json!({
            "web_search": "live",
            "sandbox_workspace_write": {"network_access": true},
            "model_reasoning_summary": "detailed"
        }));
        assert_eq!(
            c,
            Controls {
                web_search: "live".into(),
                network_access: true,
                reasoning_summary: "detailed".into(),
            }
        );
        // A value this bridge does not offer leaves Codex's default.
        let odd = Controls::configured(&json!({"web_search": "indexed"}));
        assert_eq!(odd.web_search, "cached");
    }

    #[test]
    fn changes_apply_all_or_nothing_and_null_resets() {
        let defaults = Controls::default();
        let c = defaults.clone();
        let next = c
            .apply(
                &opts(
                    json!({"webSearch": "live", "networkAccess": true, "reasoningSummary": "none"}),
                ),
                &defaults,
            )
            .unwrap();
        assert_eq!(
            next.provider_options(),
            opts(json!({"webSearch": "live", "networkAccess": true, "reasoningSummary": "none"}))
        );
        let back = next
            .apply(
                &opts(json!({"webSearch": null, "networkAccess": null, "reasoningSummary": null})),
                &defaults,
            )
            .unwrap();
        assert_eq!(back, defaults);
    }

    #[test]
    fn bad_values_and_unknown_keys_are_refused_precisely() {
        let d = Controls::default();
        let err = |v: Value| d.apply(&opts(v), &d).unwrap_err();
        let e = err(json!({"webSearch": "always"}));
        assert_eq!(e.code, Some(ErrorCode::InvalidProviderOption));
        assert_eq!(
            e.message,
            "providerOptions.webSearch must be one of `disabled`, `cached`, `live`, not \"always\""
        );
        assert_eq!(
            err(json!({"networkAccess": "yes"})).message,
            "providerOptions.networkAccess must be true or false, not \"yes\""
        );
        assert_eq!(
            err(json!({"reasoningSummary": 3})).message,
            "providerOptions.reasoningSummary must be one of `auto`, `concise`, `detailed`, `none`, not 3"
        );
        assert_eq!(
            err(json!({"webSearch": "live", "fast": true})).message,
            "codex-bridge has no provider option `fast`; it takes `webSearch`, `networkAccess` and `reasoningSummary`"
        );
    }

    #[test]
    fn controls_show_the_defaults() {
        insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("controls", controls(&Controls::default())); });
    }
}
