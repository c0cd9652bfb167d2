//! The unattended switch as a mode ([`super::AcpConfig`] with [`crate::unattended`]).

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn copilot(allow_all: &str) -> AcpConfig {
    let state: SessionAnswer = serde_json::from_value(json!({"sessionId": "s",
        "modes": {"currentModeId": "#agent", "availableModes": [{"id": "#agent"}, {"id": "#plan"}]},
        "configOptions": [
            {"type": "select", "id": "mode", "category": "mode", "currentValue": "#agent",
             "options": [{"value": "#agent", "name": "Agent"}, {"value": "#plan", "name": "Plan"}]},
            {"type": "select", "id": "allow_all", "name": "Allow All", "category": "permissions",
             "currentValue": allow_all,
             "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}]}]}))
    .expect("state");
    AcpConfig::new(&state, &[], &[])
}

fn mode(value: &str) -> ProviderConfigChanges {
    ProviderConfigChanges {
        mode: Some(Some(value.into())),
        ..Default::default()
    }
}

#[test]
fn the_switch_is_one_more_mode_marked_unattended() {
    let c = copilot("off");
    let modes = c.modes();
    assert_eq!(
        modes
            .iter()
            .map(|m| (m.id.as_str(), m.is_unattended))
            .collect::<Vec<_>>(),
        vec![
            ("#agent", Some(false)),
            ("#plan", Some(false)),
            ("allow_all", Some(true))
        ]
    );
    assert_eq!(c.state().mode.as_deref(), Some("#agent"));
    assert_eq!(copilot("on").state().mode.as_deref(), Some("allow_all"));
}

#[test]
fn choosing_the_switch_turns_it_on_and_another_mode_turns_it_off() {
    let mut c = copilot("off");
    let on = c.plan("s", &mode("allow_all")).expect("plan");
    assert_eq!(
        on.iter().map(|c| c.params.clone()).collect::<Vec<_>>(),
        vec![json!({"sessionId": "s", "configId": "allow_all", "value": "on"})]
    );
    c.set_local(on[0].category, &on[0].value);
    assert_eq!(c.current(MODE).as_deref(), Some("allow_all"));
    let plan = c.plan("s", &mode("#plan")).expect("plan");
    assert_eq!(
        plan.iter().map(|c| c.params.clone()).collect::<Vec<_>>(),
        vec![
            json!({"sessionId": "s", "configId": "allow_all", "value": "off"}),
            json!({"sessionId": "s", "configId": "mode", "value": "#plan"}),
        ]
    );
    assert_eq!(
        plan[0].previous.as_deref(),
        Some("on"),
        "undo turns it back on"
    );
    // Back to the mode under the switch: only the switch goes off.
    let back = c.plan("s", &mode("#agent")).expect("plan");
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].category, UNATTENDED);
}

#[test]
fn a_category_prefers_the_option_named_after_it() {
    let state: SessionAnswer = serde_json::from_value(json!({"sessionId": "s", "configOptions": [
        {"type": "select", "id": "provider", "category": "model", "currentValue": "openai-compatible",
         "options": [{"value": "cline", "name": "Cline"}]},
        {"type": "select", "id": "model", "category": "model", "currentValue": "gpt-4o",
         "options": [{"value": "gpt-4o", "name": "gpt-4o"}]},
        {"type": "boolean", "id": "auto_approve", "name": "Auto-approve tools", "currentValue": false}]}))
    .expect("state");
    let c = AcpConfig::new(&state, &[], &["auto_approve".to_string()]);
    assert_eq!(c.current(MODEL).as_deref(), Some("gpt-4o"));
    assert_eq!(
        c.modes().iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
        vec!["auto_approve"]
    );
}
