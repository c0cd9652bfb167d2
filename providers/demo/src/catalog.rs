//! The demo's models, modes, thinking options, controls, and all-or-nothing configure.

use agent_bridge_protocol::{
    ControlChoice, JsonMap, ProviderCatalog, ProviderConfigChanges, ProviderConfigState,
    ProviderControl, ProviderError, ProviderMode, ProviderModel, ProviderSessionConfig,
    ProviderThinkingOption,
};
use serde_json::Value;

pub const DEFAULT_MODEL: &str = "demo-fast";
pub const DEFAULT_MODE: &str = "ask";
pub const DEFAULT_THINKING: &str = "off";

fn thinking_options() -> Vec<ProviderThinkingOption> {
    vec![
        ProviderThinkingOption {
            id: "off".into(),
            label: "Off".into(),
            is_default: Some(true),
            ..Default::default()
        },
        ProviderThinkingOption {
            id: "on".into(),
            label: "Think out loud".into(),
            ..Default::default()
        },
    ]
}

fn models() -> Vec<ProviderModel> {
    vec![
        ProviderModel {
            id: "demo-fast".into(),
            label: "Demo Fast".into(),
            is_default: Some(true),
            description: Some("Replies at once".into()),
            context_window_max_tokens: Some(32_000),
            ..Default::default()
        },
        ProviderModel {
            id: "demo-smart".into(),
            label: "Demo Smart".into(),
            description: Some("Replies at once, but thinks it is smarter".into()),
            context_window_max_tokens: Some(200_000),
            thinking_options: Some(thinking_options()),
            default_thinking_option_id: Some(DEFAULT_THINKING.into()),
            ..Default::default()
        },
    ]
}

fn modes() -> Vec<ProviderMode> {
    vec![
        ProviderMode {
            id: "ask".into(),
            label: "Ask".into(),
            description: Some("Asks before running a command".into()),
            ..Default::default()
        },
        ProviderMode {
            id: "auto".into(),
            label: "Auto".into(),
            description: Some("Runs commands without asking".into()),
            is_unattended: Some(true),
            ..Default::default()
        },
    ]
}

fn controls() -> Vec<ProviderControl> {
    vec![
        ProviderControl::Toggle {
            key: "verbose".into(),
            label: "Verbose".into(),
            icon: Some("MessageSquareText".into()),
            default_value: false,
        },
        ProviderControl::Select {
            key: "style".into(),
            label: "Style".into(),
            icon: Some("Palette".into()),
            default_value: "plain".into(),
            choices: vec![
                ControlChoice {
                    value: "plain".into(),
                    label: "Plain".into(),
                },
                ControlChoice {
                    value: "pirate".into(),
                    label: "Pirate".into(),
                },
            ],
        },
    ]
}

pub fn catalog() -> ProviderCatalog {
    ProviderCatalog {
        models: models(),
        modes: modes(),
        thinking_options: Some(thinking_options()),
        default_model: Some(DEFAULT_MODEL.into()),
        default_mode: Some(DEFAULT_MODE.into()),
        default_thinking_option: Some(DEFAULT_THINKING.into()),
    }
}

/// The demo's effective settings.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoConfig {
    pub model: String,
    pub mode: String,
    pub thinking: String,
    pub verbose: bool,
    pub style: String,
}

impl Default for DemoConfig {
    fn default() -> Self {
        Self {
            model: DEFAULT_MODEL.into(),
            mode: DEFAULT_MODE.into(),
            thinking: DEFAULT_THINKING.into(),
            verbose: false,
            style: "plain".into(),
        }
    }
}

fn check(kind: &str, value: &str, known: &[&str]) -> Result<String, ProviderError> {
    if known.contains(&value) {
        Ok(value.to_string())
    } else {
        Err(ProviderError::new(format!(
            "unknown {kind} `{value}`; the demo offers {}",
            known.join(", ")
        )))
    }
}

const MODELS: [&str; 2] = ["demo-fast", "demo-smart"];
const MODES: [&str; 2] = ["ask", "auto"];
const THINKING: [&str; 2] = ["off", "on"];
const STYLES: [&str; 2] = ["plain", "pirate"];

impl DemoConfig {
    /// The config a `session.open` asks for; unknown values are refused.
    pub fn from_open(config: &ProviderSessionConfig) -> Result<DemoConfig, ProviderError> {
        let mut c = DemoConfig::default();
        if let Some(m) = &config.model {
            c.model = check("model", m, &MODELS)?;
        }
        if let Some(m) = &config.mode {
            c.mode = check("mode", m, &MODES)?;
        }
        if let Some(t) = &config.thinking_option {
            c.thinking = check("thinking option", t, &THINKING)?;
        }
        if let Some(opts) = &config.provider_options {
            c.apply_options(opts)?;
        }
        Ok(c)
    }

    fn apply_options(&mut self, opts: &JsonMap) -> Result<(), ProviderError> {
        for (key, value) in opts {
            match (key.as_str(), value) {
                ("verbose", Value::Null) => self.verbose = false,
                ("verbose", Value::Bool(b)) => self.verbose = *b,
                ("style", Value::Null) => self.style = "plain".into(),
                ("style", Value::String(s)) => self.style = check("style", s, &STYLES)?,
                ("verbose" | "style", other) => {
                    return Err(ProviderError::new(format!(
                        "providerOptions.{key} has the wrong type: {other}"
                    )))
                }
                (other, _) => {
                    return Err(ProviderError::new(format!(
                        "unknown provider option `{other}`; the demo takes `verbose` and `style`"
                    )))
                }
            }
        }
        Ok(())
    }

    /// Applies every change or none.
    pub fn apply(&self, changes: &ProviderConfigChanges) -> Result<DemoConfig, ProviderError> {
        let mut next = self.clone();
        if let Some(m) = &changes.model {
            next.model = match m {
                Some(m) => check("model", m, &MODELS)?,
                None => DEFAULT_MODEL.into(),
            };
        }
        if let Some(m) = &changes.mode {
            next.mode = match m {
                Some(m) => check("mode", m, &MODES)?,
                None => DEFAULT_MODE.into(),
            };
        }
        if let Some(t) = &changes.thinking_option {
            next.thinking = match t {
                Some(t) => check("thinking option", t, &THINKING)?,
                None => DEFAULT_THINKING.into(),
            };
        }
        if let Some(opts) = &changes.provider_options {
            next.apply_options(opts)?;
        }
        if changes.settings.as_ref().is_some_and(|s| !s.is_empty()) {
            return Err(ProviderError::new(
                "the demo has no legacy settings; use providerOptions",
            ));
        }
        Ok(next)
    }

    pub fn unattended(&self) -> bool {
        self.mode == "auto"
    }

    pub fn state(&self) -> ProviderConfigState {
        let mut provider_options = JsonMap::new();
        provider_options.insert("verbose".into(), Value::Bool(self.verbose));
        provider_options.insert("style".into(), Value::String(self.style.clone()));
        ProviderConfigState {
            model: Some(self.model.clone()),
            mode: Some(self.mode.clone()),
            thinking_option: Some(self.thinking.clone()),
            models: models(),
            modes: modes(),
            thinking_options: thinking_options(),
            controls: controls(),
            provider_options,
            settings: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn opts(v: Value) -> Option<JsonMap> {
        v.as_object().cloned()
    }

    #[test]
    fn configure_is_all_or_nothing() {
        let c = DemoConfig::default();
        let bad = ProviderConfigChanges {
            model: Some(Some("demo-smart".into())),
            provider_options: opts(json!({"nope": 1})),
            ..Default::default()
        };
        assert!(c.apply(&bad).is_err());
        let good = ProviderConfigChanges {
            model: Some(Some("demo-smart".into())),
            provider_options: opts(json!({"style": "pirate", "verbose": true})),
            ..Default::default()
        };
        let next = c.apply(&good).unwrap();
        assert_eq!(
            (next.model.as_str(), next.style.as_str(), next.verbose),
            ("demo-smart", "pirate", true)
        );
        let reset = ProviderConfigChanges {
            provider_options: opts(json!({"style": null})),
            ..Default::default()
        };
        assert_eq!(next.apply(&reset).unwrap().style, "plain");
    }
}
