//! Models, modes and thinking options: from the CLI's `initialize` answer, with a documented
//! fallback list only when the CLI reports none; and the mapping of what the CLI selected
//! (`system/init`, `get_settings`) back onto catalog ids.

use agent_bridge_protocol::{
    JsonMap, ProviderCatalog, ProviderConfigState, ProviderMode, ProviderModel,
    ProviderThinkingOption,
};
use serde_json::{json, Value};

/// Permission modes exposed to Paseo (the CLI also has `dontAsk` and `auto`, not exposed).
pub const MODES: [&str; 4] = ["default", "acceptEdits", "plan", "bypassPermissions"];
pub const DEFAULT_MODE: &str = "default";

/// Effort levels, the CLI's thinking control (`--effort`, `effortLevel`).
pub const EFFORT_LEVELS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];

pub fn modes() -> Vec<ProviderMode> {
    let mode = |id: &str, label: &str, description: &str| ProviderMode {
        id: id.into(),
        label: label.into(),
        description: Some(description.into()),
        is_unattended: (id == "bypassPermissions").then_some(true),
        ..ProviderMode::default()
    };
    vec![
        mode(
            "default",
            "Always Ask",
            "Ask before running tools that change anything",
        ),
        mode(
            "acceptEdits",
            "Accept Edits",
            "Apply file edits without asking; ask for other tools",
        ),
        mode(
            "plan",
            "Plan",
            "Read-only planning; propose a plan before changing anything",
        ),
        mode(
            "bypassPermissions",
            "Bypass Permissions",
            "Run every tool without asking",
        ),
    ]
}

fn effort_label(level: &str) -> String {
    match level {
        "xhigh" => "Extra high".into(),
        other => {
            let mut c = other.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        }
    }
}

pub fn thinking_options(levels: &[String]) -> Vec<ProviderThinkingOption> {
    levels
        .iter()
        .map(|l| ProviderThinkingOption {
            id: l.clone(),
            label: effort_label(l),
            description: None,
            is_default: (l == "high").then_some(true),
            metadata: None,
        })
        .collect()
}

/// One model as the CLI's `initialize` answer lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct CliModel {
    pub value: String,
    pub resolved: Option<String>,
    pub display_name: String,
    pub description: Option<String>,
    pub effort_levels: Vec<String>,
}

/// Reads `models` from an `initialize` answer; falls back to the documented aliases when the
/// CLI reports none.
pub fn models_from_initialize(answer: &Value) -> Vec<CliModel> {
    let listed: Vec<CliModel> = answer
        .get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let value = m.get("value")?.as_str()?.to_string();
            Some(CliModel {
                resolved: m
                    .get("resolvedModel")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                display_name: m
                    .get("displayName")
                    .and_then(Value::as_str)
                    .unwrap_or(&value)
                    .to_string(),
                description: m
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                effort_levels: match m.get("supportedEffortLevels").and_then(Value::as_array) {
                    Some(levels) => levels
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    None => Vec::new(),
                },
                value,
            })
        })
        .collect();
    if listed.is_empty() {
        fallback_models()
    } else {
        listed
    }
}

/// The CLI's model aliases (`claude --help`: "an alias for the latest model"), used only when
/// the CLI's `initialize` answer lists no models.
pub fn fallback_models() -> Vec<CliModel> {
    let all: Vec<String> = EFFORT_LEVELS.iter().map(|s| s.to_string()).collect();
    let m = |value: &str, name: &str, levels: Vec<String>| CliModel {
        value: value.into(),
        resolved: None,
        display_name: name.into(),
        description: None,
        effort_levels: levels,
    };
    vec![
        m("default", "Default (recommended)", all.clone()),
        m("opus", "Opus", all.clone()),
        m("sonnet", "Sonnet", all),
        m("haiku", "Haiku", Vec::new()),
    ]
}

pub fn provider_models(models: &[CliModel]) -> Vec<ProviderModel> {
    models
        .iter()
        .map(|m| {
            let mut metadata = JsonMap::new();
            if let Some(r) = &m.resolved {
                metadata.insert("resolvedModel".into(), json!(r));
            }
            let thinking = thinking_options(&m.effort_levels);
            ProviderModel {
                id: m.value.clone(),
                label: m.display_name.clone(),
                description: m.description.clone(),
                is_default: (m.value == "default").then_some(true),
                metadata: (!metadata.is_empty()).then_some(metadata),
                default_thinking_option_id: thinking
                    .iter()
                    .any(|t| t.id == "high")
                    .then(|| "high".to_string()),
                thinking_options: (!thinking.is_empty()).then_some(thinking),
                ..ProviderModel::default()
            }
        })
        .collect()
}

pub fn catalog(models: &[CliModel]) -> ProviderCatalog {
    let default_levels = models
        .iter()
        .find(|m| m.value == "default")
        .or_else(|| models.first())
        .map(|m| m.effort_levels.clone())
        .unwrap_or_default();
    let thinking = thinking_options(&default_levels);
    ProviderCatalog {
        models: provider_models(models),
        modes: modes(),
        default_model: models
            .iter()
            .find(|m| m.value == "default")
            .or_else(|| models.first())
            .map(|m| m.value.clone()),
        default_mode: Some(DEFAULT_MODE.into()),
        default_thinking_option: thinking
            .iter()
            .any(|t| t.id == "high")
            .then(|| "high".into()),
        thinking_options: Some(thinking),
    }
}

/// Maps the model the CLI reports (an alias or a resolved id such as `claude-opus-4-8[1m]`)
/// onto a catalog id, preferring the currently selected id when it resolves to the same model.
pub fn catalog_model_id(models: &[CliModel], reported: &str, current: Option<&str>) -> String {
    let matches = |m: &CliModel| m.value == reported || m.resolved.as_deref() == Some(reported);
    if let Some(cur) = current.and_then(|c| models.iter().find(|m| m.value == c)) {
        if matches(cur) {
            return cur.value.clone();
        }
    }
    // The CLI reports resolved ids without the date suffix of some aliases; compare loosely.
    let base = |s: &str| s.split('[').next().unwrap_or(s).to_string();
    models
        .iter()
        .find(|m| matches(m))
        .or_else(|| {
            models.iter().find(|m| {
                m.resolved.as_deref().is_some_and(|r| {
                    r.starts_with(&base(reported))
                        && r.contains("[1m]") == reported.contains("[1m]")
                })
            })
        })
        .map(|m| m.value.clone())
        .unwrap_or_else(|| reported.to_string())
}

/// The effort levels the model supports.
pub fn levels_of(models: &[CliModel], model_id: &str) -> Vec<String> {
    models
        .iter()
        .find(|m| m.value == model_id)
        .map(|m| m.effort_levels.clone())
        .unwrap_or_default()
}

/// The committed config state of a session.
pub fn config_state(
    models: &[CliModel],
    model: &str,
    mode: &str,
    thinking: Option<&str>,
) -> ProviderConfigState {
    let mut provider_models = provider_models(models);
    if !models.iter().any(|m| m.value == model) {
        // The CLI selected something outside its own list (e.g. a full model name).
        provider_models.push(ProviderModel {
            id: model.to_string(),
            label: model.to_string(),
            ..ProviderModel::default()
        });
    }
    let levels = levels_of(models, model);
    ProviderConfigState {
        model: Some(model.to_string()),
        mode: Some(mode.to_string()),
        thinking_option: thinking
            .filter(|t| levels.iter().any(|l| l == t))
            .map(str::to_string),
        models: provider_models,
        modes: modes(),
        thinking_options: thinking_options(&levels),
        controls: Vec::new(),
        provider_options: JsonMap::new(),
        settings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn fixture_models() -> Vec<CliModel> {
        let text = crate::normalize::tests_support::fixture("claude-say-hi");
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        models_from_initialize(&first["response"]["response"])
    }

    #[test]
    fn models_come_from_the_initialize_answer() {
        let models = fixture_models();
        let ids: Vec<&str> = models.iter().map(|m| m.value.as_str()).collect();
        assert_eq!(
            ids,
            vec!["default", "opus[1m]", "sonnet", "sonnet[1m]", "haiku"]
        );
        insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("catalog", catalog(&models)); });
    }

    #[test]
    fn reported_models_map_back_to_catalog_ids() {
        let models = fixture_models();
        assert_eq!(
            catalog_model_id(&models, "claude-opus-4-8[1m]", None),
            "default"
        );
        assert_eq!(
            catalog_model_id(&models, "claude-opus-4-8[1m]", Some("opus[1m]")),
            "opus[1m]"
        );
        assert_eq!(
            catalog_model_id(&models, "claude-sonnet-5", Some("default")),
            "sonnet"
        );
        assert_eq!(catalog_model_id(&models, "sonnet", None), "sonnet");
        assert_eq!(
            catalog_model_id(&models, "claude-custom-1", None),
            "claude-custom-1"
        );
    }

    #[test]
    fn no_models_falls_back_to_the_aliases() {
        let ids: Vec<String> = models_from_initialize(&json!({"commands": []}))
            .into_iter()
            .map(|m| m.value)
            .collect();
        assert_eq!(ids, vec!["default", "opus", "sonnet", "haiku"]);
    }

    #[test]
    fn bypass_is_the_only_unattended_mode() {
        let unattended: Vec<String> = modes()
            .into_iter()
            .filter(|m| m.is_unattended == Some(true))
            .map(|m| m.id)
            .collect();
        assert_eq!(unattended, vec!["bypassPermissions"]);
    }
}
