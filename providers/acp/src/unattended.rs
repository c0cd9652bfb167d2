//! An unattended switch: a session config option that makes the agent run tools without asking
//! (GitHub Copilot's `allow_all` select `on`/`off` of category `permissions`, Cline's boolean
//! `auto_approve`). Such an agent has no unattended mode, so the bridge offers the switch as one
//! more mode (its id is the option's id), marked unattended: choosing it turns the switch on,
//! choosing any other mode turns it off ([`crate::config`]).

use crate::wire::acp::SessionConfigOptionValue;
use crate::wire::{requests, ConfigOption};
use serde_json::{json, Value};

/// The category ACP gives permission options.
pub const PERMISSIONS: &str = "permissions";

/// The switch of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct Switch {
    /// The option's id, also the id of the mode it becomes.
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// A boolean option (`true`/`false`), else a select with `on` and `off`.
    boolean: bool,
}

/// Whether `option` can be switched on and off: a boolean, or a select offering `on` and `off`.
fn on_off(option: &ConfigOption) -> Option<bool> {
    match option.kind.as_deref() {
        Some("boolean") => Some(true),
        Some("select") | None => {
            let values: Vec<String> = option.choices().into_iter().map(|c| c.value).collect();
            (values.len() == 2
                && values.iter().any(|v| v == "on")
                && values.iter().any(|v| v == "off"))
            .then_some(false)
        }
        Some(_) => None,
    }
}

impl Switch {
    /// The switch among `options`: the first named in `named` (a profile's or entry's
    /// `unattendedOptions`), else the first on/off option of category `permissions`.
    pub fn find(options: &[ConfigOption], named: &[String]) -> Option<Switch> {
        let switch = |o: &ConfigOption| {
            on_off(o).map(|boolean| Switch {
                id: o.id.clone(),
                name: o.name.clone().unwrap_or_else(|| o.id.clone()),
                description: o.description.clone(),
                boolean,
            })
        };
        named
            .iter()
            .find_map(|n| options.iter().find(|o| &o.id == n).and_then(switch))
            .or_else(|| {
                options
                    .iter()
                    .filter(|o| o.category.as_deref() == Some(PERMISSIONS))
                    .find_map(switch)
            })
    }

    /// Whether the switch is on in `options`.
    pub fn is_on(&self, options: &[ConfigOption]) -> bool {
        options
            .iter()
            .find(|o| o.id == self.id)
            .and_then(|o| o.current_value.as_ref())
            .is_some_and(|v| v == &Value::Bool(true) || v == "on")
    }

    fn value(&self, on: bool) -> Value {
        match (self.boolean, on) {
            (true, on) => Value::Bool(on),
            (false, true) => json!("on"),
            (false, false) => json!("off"),
        }
    }

    /// The `session/set_config_option` params that turn the switch on or off (a boolean
    /// option's value goes with `"type": "boolean"`: Cline refuses a bare `true` with -32602).
    pub fn params(&self, session_id: &str, on: bool) -> Value {
        let value = match (self.boolean, on) {
            (true, on) => SessionConfigOptionValue::boolean(on),
            (false, true) => SessionConfigOptionValue::from("on"),
            (false, false) => SessionConfigOptionValue::from("off"),
        };
        requests::set_config_value(session_id, &self.id, value)
    }

    /// Records the switch's new state in `options`.
    pub fn set_local(&self, options: &mut [ConfigOption], on: bool) {
        if let Some(o) = options.iter_mut().find(|o| o.id == self.id) {
            o.current_value = Some(self.value(on));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn options(v: Value) -> Vec<ConfigOption> {
        serde_json::from_value(v).expect("options")
    }

    #[test]
    fn copilots_allow_all_is_found_by_its_category() {
        let opts = options(json!([
            {"type": "select", "id": "mode", "category": "mode", "currentValue": "a",
             "options": [{"value": "a", "name": "A"}]},
            {"type": "select", "id": "allow_all", "name": "Allow All", "category": "permissions",
             "currentValue": "off", "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}]}
        ]));
        let mut opts = opts;
        let s = Switch::find(&opts, &[]).expect("switch");
        assert_eq!((s.id.as_str(), s.name.as_str()), ("allow_all", "Allow All"));
        assert!(!s.is_on(&opts));
        assert_eq!(
            s.params("s1", true),
            json!({"sessionId": "s1", "configId": "allow_all", "value": "on"})
        );
        s.set_local(&mut opts, true);
        assert!(s.is_on(&opts));
    }

    #[test]
    fn clines_auto_approve_is_found_by_name_and_sent_typed() {
        let opts = options(json!([
            {"type": "boolean", "id": "auto_approve", "name": "Auto-approve tools", "currentValue": false}
        ]));
        assert_eq!(Switch::find(&opts, &[]), None, "no category, not named");
        let s = Switch::find(&opts, &["auto_approve".to_string()]).expect("named");
        assert_eq!(
            s.params("s1", true),
            json!({"sessionId": "s1", "configId": "auto_approve", "value": true, "type": "boolean"})
        );
        assert!(!s.is_on(&opts));
    }

    #[test]
    fn a_permissions_select_that_is_not_on_off_is_no_switch() {
        let opts = options(json!([
            {"type": "select", "id": "policy", "category": "permissions", "currentValue": "ask",
             "options": [{"value": "ask", "name": "Ask"}, {"value": "never", "name": "Never"}]}
        ]));
        assert_eq!(Switch::find(&opts, &[]), None);
    }
}
