//! Models, modes and thinking levels of an ACP session: the config options of `session/new`
//! (category `model` / `mode` / `thought_level`) first, the legacy `modes` / `models` fields as
//! fallback. Changes go through `session/set_config_option`, else `session/set_mode` /
//! `session/set_model`; a configure is planned (every value checked) before any call. An
//! unattended switch ([`crate::unattended`]) is one more mode.

use crate::normalize::ConfigChange;
use crate::profile::Profile;
use crate::unattended::Switch;
use crate::wire::{method, requests, ConfigOption, Mode, ModeState, ModelState, SessionAnswer};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    ProviderCatalog, ProviderConfigChanges, ProviderConfigState, ProviderError, ProviderMode,
    ProviderModel, ProviderThinkingOption,
};
use serde_json::Value;

pub const MODEL: &str = "model";
pub const MODE: &str = "mode";
pub const THOUGHT: &str = "thought_level";
/// The calls that turn an unattended switch on (`on`) or off (`off`).
pub const UNATTENDED: &str = "unattended";
/// The method of a mode change that is no call: the session moves to a process of that mode
/// ([`crate::process_switch`]); planned after every other call.
pub const PROCESS: &str = "_bridge/process_mode";

/// The config surface of one session.
#[derive(Debug, Clone, Default)]
pub struct AcpConfig {
    options: Vec<ConfigOption>,
    modes: Option<ModeState>,
    models: Option<ModelState>,
    unattended: Vec<String>,
    /// The option id names of unattended switches (a profile's `unattendedOptions`).
    switch_names: Vec<String>,
    /// The modes are the profile's process modes ([`crate::process_modes`]): a change moves
    /// the session to another process.
    by_process: bool,
    /// The values at open, for resets: (category, value).
    defaults: Vec<(&'static str, String)>,
}

/// One call of a planned configure.
#[derive(Debug, Clone, PartialEq)]
pub struct SetCall {
    pub category: &'static str,
    pub value: String,
    /// The value before, to undo the call.
    pub previous: Option<String>,
    pub method: &'static str,
    pub params: Value,
}

impl AcpConfig {
    /// The config of a `session/new` (or load) answer; `unattended` are the mode ids that run
    /// tools without asking, `switches` the ids of config options that do
    /// ([`crate::unattended`]; an on/off option of category `permissions` is one anyway).
    pub fn new(state: &SessionAnswer, unattended: &[String], switches: &[String]) -> Self {
        Self::with_process_modes(state, unattended, switches, &[], None)
    }

    /// The config of a session of `profile` on a process of the process mode `mode`.
    pub fn for_profile(state: &SessionAnswer, p: &Profile, mode: Option<&str>) -> Self {
        let (u, s) = (&p.unattended_modes, &p.unattended_options);
        Self::with_process_modes(state, u, s, &p.process_modes.ids(), mode)
    }

    /// [`Self::new`] with process modes `process` (base first), on a process of `mode`.
    fn with_process_modes(
        state: &SessionAnswer,
        unattended: &[String],
        switches: &[String],
        process: &[String],
        mode: Option<&str>,
    ) -> Self {
        let mut c = AcpConfig {
            options: state.config_options.clone().unwrap_or_default(),
            modes: state.modes.clone(),
            models: state.models.clone(),
            unattended: unattended.to_vec(),
            switch_names: switches.to_vec(),
            by_process: false,
            defaults: Vec::new(),
        };
        c.process_mode(process, mode);
        for cat in [MODEL, MODE, THOUGHT] {
            if let Some(v) = c.current(cat) {
                c.defaults.push((cat, v));
            }
        }
        c
    }

    /// An agent with no modes at all (no mode option, no `modes`, no switch) is offered its
    /// process modes ([`crate::process_modes`], current: the process's `mode`); else its
    /// profile's first unattended mode, as its only one: a flag the profile always passes
    /// (Grok Build's `--always-approve`), so asking for it changes nothing.
    fn process_mode(&mut self, process: &[String], mode: Option<&str>) {
        let no_modes = self
            .modes
            .as_ref()
            .is_none_or(|m| m.available_modes.is_empty());
        if !no_modes || self.option(MODE).is_some() || self.switch().is_some() {
            if !process.is_empty() {
                tracing::warn!("the agent has modes of its own: no processModes offered");
            }
            return;
        }
        let entry = |id: &String| Mode {
            id: id.clone(),
            name: None,
            description: None,
        };
        let (current, available) = match (process.first(), self.unattended.first()) {
            (Some(base), _) => {
                self.by_process = true;
                let current = mode.map_or(base.clone(), str::to_string);
                (current, process.iter().map(entry).collect())
            }
            (None, Some(id)) => (id.clone(), vec![entry(id)]),
            (None, None) => return,
        };
        self.modes = Some(ModeState {
            current_mode_id: Some(current),
            available_modes: available,
        });
    }

    /// The select option of a category: the one whose id is the category's name, else the
    /// first (Cline's `provider` and `model` are both of category `model`).
    fn option(&self, category: &str) -> Option<&ConfigOption> {
        let of = |o: &&ConfigOption| {
            o.category.as_deref() == Some(category) && o.kind.as_deref() != Some("boolean")
        };
        let mut options = self.options.iter().filter(of);
        let first = options.clone().next();
        options.find(|o| o.id == category).or(first)
    }

    /// The unattended switch, if the agent has one.
    pub fn switch(&self) -> Option<Switch> {
        Switch::find(&self.options, &self.switch_names)
    }

    /// The switch when it is on.
    fn switch_on(&self) -> Option<Switch> {
        self.switch().filter(|s| s.is_on(&self.options))
    }

    /// The current value of a category (the mode: the switch's id while it is on).
    pub fn current(&self, category: &str) -> Option<String> {
        if category == MODE {
            if let Some(s) = self.switch_on() {
                return Some(s.id);
            }
        }
        self.base(category)
    }

    /// The current value of a category's own option (the mode under the switch).
    fn base(&self, category: &str) -> Option<String> {
        if let Some(o) = self.option(category) {
            return o.current();
        }
        match category {
            MODE => self.modes.as_ref().and_then(|m| m.current_mode_id.clone()),
            MODEL => self
                .models
                .as_ref()
                .and_then(|m| m.current_model_id.clone()),
            _ => None,
        }
    }

    /// The (id, label, description) choices of a category (the modes and the switch).
    fn choices(&self, category: &str) -> Vec<(String, String, Option<String>)> {
        let mut out = self.own_choices(category);
        if category == MODE {
            if let Some(s) = self.switch() {
                out.push((s.id, s.name, s.description));
            }
        }
        out
    }

    fn own_choices(&self, category: &str) -> Vec<(String, String, Option<String>)> {
        if let Some(o) = self.option(category) {
            return o
                .choices()
                .into_iter()
                .map(|c| (c.value, c.name, c.description))
                .collect();
        }
        match category {
            MODE => self
                .modes
                .iter()
                .flat_map(|m| &m.available_modes)
                .map(|m| {
                    (
                        m.id.clone(),
                        m.name.clone().unwrap_or(m.id.clone()),
                        m.description.clone(),
                    )
                })
                .collect(),
            MODEL => self
                .models
                .iter()
                .flat_map(|m| &m.available_models)
                .map(|m| {
                    let label = m.name.clone().unwrap_or(m.model_id.clone());
                    (m.model_id.clone(), label, m.description.clone())
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn models(&self) -> Vec<ProviderModel> {
        let current = self.current(MODEL);
        let thinking = self.thinking_options();
        self.choices(MODEL)
            .into_iter()
            .map(|(id, label, description)| ProviderModel {
                is_default: Some(current.as_deref() == Some(id.as_str())),
                thinking_options: (!thinking.is_empty()).then(|| thinking.clone()),
                default_thinking_option_id: self.current(THOUGHT),
                id,
                label,
                description,
                aliases: None,
                is_selectable: None,
                metadata: None,
                context_window_max_tokens: None,
            })
            .collect()
    }

    pub fn modes(&self) -> Vec<ProviderMode> {
        let switch = self.switch().map(|s| s.id);
        self.choices(MODE)
            .into_iter()
            .map(|(id, label, description)| ProviderMode {
                is_unattended: Some(self.unattended.contains(&id) || switch.as_ref() == Some(&id)),
                id,
                label,
                description,
                icon: None,
                color_tier: None,
            })
            .collect()
    }

    pub fn thinking_options(&self) -> Vec<ProviderThinkingOption> {
        self.choices(THOUGHT)
            .into_iter()
            .map(|(id, label, description)| ProviderThinkingOption {
                is_default: Some(self.current(THOUGHT).as_deref() == Some(id.as_str())),
                id,
                label,
                description,
                metadata: None,
            })
            .collect()
    }

    pub fn state(&self) -> ProviderConfigState {
        ProviderConfigState {
            model: self.current(MODEL),
            mode: self.current(MODE),
            thinking_option: self.current(THOUGHT),
            models: self.models(),
            modes: self.modes(),
            thinking_options: self.thinking_options(),
            ..ProviderConfigState::default()
        }
    }

    pub fn catalog(&self) -> ProviderCatalog {
        let thinking = self.thinking_options();
        ProviderCatalog {
            models: self.models(),
            modes: self.modes(),
            thinking_options: (!thinking.is_empty()).then_some(thinking),
            default_model: self.current(MODEL),
            default_mode: self.current(MODE),
            default_thinking_option: self.current(THOUGHT),
        }
    }

    /// The committed values (category, value): what a restarted agent is set back to.
    pub fn committed(&self) -> Vec<(&'static str, String)> {
        [MODEL, MODE, THOUGHT]
            .into_iter()
            .filter_map(|cat| self.current(cat).map(|v| (cat, v)))
            .collect()
    }

    /// Resets go to `other`'s values at open (a restarted agent's session is the same session).
    pub fn inherit_defaults(&mut self, other: &AcpConfig) {
        self.defaults = other.defaults.clone();
    }

    /// An update the agent sent (`current_mode_update`, `config_option_update`).
    pub fn apply_update(&mut self, change: ConfigChange) {
        match change {
            ConfigChange::Mode(id) => self.set_local(MODE, &id),
            ConfigChange::Options(options) => self.options = options,
        }
    }

    /// Records a value the agent accepted.
    pub fn set_local(&mut self, category: &str, value: &str) {
        if category == UNATTENDED {
            if let Some(s) = self.switch() {
                s.set_local(&mut self.options, value == "on");
            }
            return;
        }
        if let Some(o) = self
            .options
            .iter_mut()
            .find(|o| o.category.as_deref() == Some(category))
        {
            o.current_value = Some(Value::String(value.to_string()));
        }
        match category {
            MODE => {
                if let Some(m) = self.modes.as_mut() {
                    m.current_mode_id = Some(value.to_string());
                }
            }
            MODEL => {
                if let Some(m) = self.models.as_mut() {
                    m.current_model_id = Some(value.to_string());
                }
            }
            _ => {}
        }
    }

    /// Replaces the options with an answer's `configOptions` (the full new state).
    pub fn replace_options(&mut self, answer: &Value) {
        if let Some(opts) = answer.get("configOptions") {
            if let Ok(options) = serde_json::from_value::<Vec<ConfigOption>>(opts.clone()) {
                self.options = options;
            }
        }
    }

    /// The call that sets `category` to `value` in `session_id`.
    pub fn call(&self, session_id: &str, category: &'static str, value: &str) -> Option<SetCall> {
        if category == UNATTENDED {
            let s = self.switch()?;
            let on = s.is_on(&self.options);
            return Some(SetCall {
                category,
                value: value.to_string(),
                previous: Some(if on { "on" } else { "off" }.to_string()),
                method: method::SESSION_SET_CONFIG_OPTION,
                params: s.params(session_id, value == "on"),
            });
        }
        let previous = self.base(category);
        let (method, params) = if let Some(o) = self.option(category) {
            (
                method::SESSION_SET_CONFIG_OPTION,
                requests::set_config_option(session_id, &o.id, value),
            )
        } else {
            match category {
                MODE if self.modes.is_some() => (
                    method::SESSION_SET_MODE,
                    requests::set_mode(session_id, value),
                ),
                MODEL if self.models.is_some() => (
                    method::SESSION_SET_MODEL,
                    requests::set_model(session_id, value),
                ),
                _ => return None,
            }
        };
        Some(SetCall {
            category,
            value: value.to_string(),
            previous,
            method,
            params,
        })
    }

    /// Plans a configure: every requested value must be one the agent offers; a `null` resets
    /// to the value at open. Nothing is sent when any value is refused.
    pub fn plan(
        &self,
        session_id: &str,
        changes: &ProviderConfigChanges,
    ) -> Result<Vec<SetCall>, ProviderError> {
        if changes
            .provider_options
            .as_ref()
            .is_some_and(|m| !m.is_empty())
            || changes.settings.as_ref().is_some_and(|m| !m.is_empty())
        {
            return Err(ProviderError::new(
                "this ACP agent has no provider options or settings to change",
            )
            .with_code(ErrorCode::InvalidConfig));
        }
        let mut calls = Vec::new();
        for (category, change, what) in [
            (MODEL, &changes.model, "model"),
            (MODE, &changes.mode, "mode"),
            (THOUGHT, &changes.thinking_option, "thinking option"),
        ] {
            let Some(change) = change else { continue };
            let value = match change {
                Some(v) => v.clone(),
                None => match self.defaults.iter().find(|(c, _)| *c == category) {
                    Some((_, v)) => v.clone(),
                    None => continue,
                },
            };
            if self.current(category).as_deref() == Some(value.as_str()) {
                continue;
            }
            let offered = self.choices(category);
            if !offered.iter().any(|(id, _, _)| id == &value) {
                let ids: Vec<&str> = offered.iter().map(|(id, _, _)| id.as_str()).collect();
                return Err(ProviderError::new(if ids.is_empty() {
                    format!("this agent has no {what} to choose")
                } else {
                    format!(
                        "unknown {what} `{value}`; this agent offers: {}",
                        ids.join(", ")
                    )
                })
                .with_code(agent_bridge_protocol::ErrorCode::parse(&format!(
                    "invalid_{}",
                    what.replace(' ', "_")
                ))));
            }
            let cannot = || {
                ProviderError::new(format!("this agent cannot change its {what}"))
                    .with_code(ErrorCode::InvalidConfig)
            };
            if category == MODE {
                calls.extend(self.mode_calls(session_id, &value).ok_or_else(cannot)?);
                continue;
            }
            calls.push(self.call(session_id, category, &value).ok_or_else(cannot)?);
        }
        // The move to another process comes last: it takes the values set before along.
        calls.sort_by_key(|c| c.method == PROCESS);
        Ok(calls)
    }
}

impl AcpConfig {
    /// The calls that set the mode to `value` (the current mode differs): the switch's id turns
    /// it on; another mode turns it off where it is on, then sets that mode.
    fn mode_calls(&self, session_id: &str, value: &str) -> Option<Vec<SetCall>> {
        if self.by_process {
            return Some(vec![SetCall {
                category: MODE,
                value: value.to_string(),
                previous: self.base(MODE),
                method: PROCESS,
                params: serde_json::json!({"sessionId": session_id, "modeId": value}),
            }]);
        }
        let switch = self.switch();
        if switch.as_ref().is_some_and(|s| s.id == value) {
            return Some(vec![self.call(session_id, UNATTENDED, "on")?]);
        }
        let mut calls = Vec::new();
        if self.switch_on().is_some() {
            calls.push(self.call(session_id, UNATTENDED, "off")?);
        }
        if self.base(MODE).as_deref() != Some(value) {
            calls.push(self.call(session_id, MODE, value)?);
        }
        Some(calls)
    }
}

#[cfg(test)]
#[path = "config_switch_tests.rs"]
mod switch_tests;

#[cfg(test)]
#[path = "config_process_tests.rs"]
mod process_tests;

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
