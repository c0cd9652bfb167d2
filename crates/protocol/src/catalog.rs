//! Catalog (models, modes, thinking options), committed config state and composer controls.

use crate::{Json, JsonMap};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderThinkingOption {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonMap>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderModel {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_selectable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window_max_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_options: Option<Vec<ProviderThinkingOption>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_thinking_option_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderMode {
    pub id: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_tier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_unattended: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderCatalog {
    pub models: Vec<ProviderModel>,
    pub modes: Vec<ProviderMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_options: Option<Vec<ProviderThinkingOption>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_thinking_option: Option<String>,
}

/// One choice of a `select` control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ControlChoice {
    pub value: String,
    pub label: String,
}

/// A composer control drawing one top-level `providerOptions` key (newest protocol).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ProviderControl {
    #[serde(rename_all = "camelCase")]
    Toggle {
        key: String,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        icon: Option<String>,
        default_value: bool,
    },
    #[serde(rename_all = "camelCase")]
    Select {
        key: String,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        icon: Option<String>,
        default_value: String,
        choices: Vec<ControlChoice>,
    },
}

impl ProviderControl {
    pub fn key(&self) -> &str {
        match self {
            ProviderControl::Toggle { key, .. } | ProviderControl::Select { key, .. } => key,
        }
    }
}

/// Legacy `ProviderSetting` (V-bd89), still accepted from older hosts and still publishable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ProviderSetting {
    Toggle {
        id: String,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        value: bool,
    },
    Select {
        id: String,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        value: Option<String>,
        options: Vec<SettingOption>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SettingOption {
    pub label: String,
    pub value: String,
}

/// `ProviderConfigState`: the committed configuration of a session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfigState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_option: Option<String>,
    pub models: Vec<ProviderModel>,
    pub modes: Vec<ProviderMode>,
    pub thinking_options: Vec<ProviderThinkingOption>,
    pub controls: Vec<ProviderControl>,
    pub provider_options: JsonMap,
    /// Legacy settings, always sent (`[]` when none): Paseo 0.9's `ProviderConfigState` requires
    /// the array (provider.ts@bd898554) and refuses the whole connection without it; a newer
    /// Paseo takes it beside `controls` and `providerOptions`.
    #[serde(default)]
    pub settings: Vec<ProviderSetting>,
}

/// `ProviderConfigChanges` of `session.configure`. `Some(None)` means "reset".
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfigChanges {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[schemars(with = "Option<String>")]
    pub model: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[schemars(with = "Option<String>")]
    pub mode: Option<Option<String>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    #[schemars(with = "Option<String>")]
    pub thinking_option: Option<Option<String>>,
    /// Every key a live change touches; a `null` value resets that key to its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_options: Option<JsonMap>,
    /// Legacy settings changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<JsonMap>,
}

impl ProviderConfigChanges {
    pub fn is_empty(&self) -> bool {
        self.model.is_none()
            && self.mode.is_none()
            && self.thinking_option.is_none()
            && self.provider_options.as_ref().is_none_or(|m| m.is_empty())
            && self.settings.as_ref().is_none_or(|m| m.is_empty())
    }
}

/// Distinguishes an absent key from an explicit `null`.
mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Option<String>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<String>>, D::Error> {
        Option::<String>::deserialize(d).map(Some)
    }
}

/// `ProviderCatalogOptions` carried by availability and cache-key requests. Tolerant: these are
/// hook arguments Paseo does not validate strictly, so a field a newer Paseo adds is ignored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderCatalogOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "CatalogScope")]
    pub scope: Option<CatalogScope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub force: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "JsonMap")]
    pub provider_options: Option<JsonMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "JsonMap")]
    pub settings: Option<JsonMap>,
    /// The launch the host will connect with (Paseo's `provider.catalog_key` options carry
    /// it): the catalog cache key is that launch's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "crate::wire::LaunchSpec")]
    pub launch: Option<crate::wire::LaunchSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CatalogScope {
    Global,
    Workspace,
}

/// Result of an availability probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderAvailability {
    pub status: AvailabilityStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostic: Option<String>,
}

impl ProviderAvailability {
    pub fn available() -> Self {
        Self {
            status: AvailabilityStatus::Available,
            diagnostic: None,
        }
    }

    pub fn with(status: AvailabilityStatus, diagnostic: impl Into<String>) -> Self {
        let mut d: String = diagnostic.into();
        if d.len() > 4096 {
            let mut cut = 4096;
            while !d.is_char_boundary(cut) {
                cut -= 1;
            }
            d.truncate(cut);
        }
        Self {
            status,
            diagnostic: Some(d),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AvailabilityStatus {
    Missing,
    Unrunnable,
    Incompatible,
    Available,
}

/// Helper: reads an opaque JSON value as a bool / string with a key name for errors.
pub fn option_value<'a>(options: &'a JsonMap, key: &str) -> Option<&'a Json> {
    options.get(key).filter(|v| !v.is_null())
}
