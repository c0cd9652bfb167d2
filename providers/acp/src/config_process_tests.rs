//! Process modes as the modes of an agent without its own ([`super::AcpConfig::for_profile`]
//! with [`crate::process_modes`]).

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

/// Deep Agents Code's `session/new` answer: a model option, no modes.
fn dcode(mode: Option<&str>) -> AcpConfig {
    let state: SessionAnswer = serde_json::from_value(json!({"sessionId": "s",
        "configOptions": [
            {"type": "select", "id": "model", "category": "model", "currentValue": "openai:mock-model",
             "options": [{"value": "openai:mock-model", "name": "openai:mock-model"},
                         {"value": "openai:gpt-5.5", "name": "openai:gpt-5.5"}]}]}))
    .expect("state");
    let profile = crate::profile::builtin("deepagents").expect("profile");
    AcpConfig::for_profile(&state, &profile, mode)
}

fn change(mode: Option<&str>, model: Option<&str>) -> ProviderConfigChanges {
    ProviderConfigChanges {
        mode: mode.map(|m| Some(m.into())),
        model: model.map(|m| Some(m.into())),
        ..Default::default()
    }
}

#[test]
fn the_process_modes_are_offered_the_flagged_one_unattended() {
    let c = dcode(None);
    let modes: Vec<(String, Option<bool>)> = c
        .modes()
        .into_iter()
        .map(|m| (m.id, m.is_unattended))
        .collect();
    assert_eq!(
        modes,
        vec![("ask".into(), Some(false)), ("yolo".into(), Some(true))]
    );
    assert_eq!(c.current(MODE).as_deref(), Some("ask"), "the base mode");
    assert_eq!(c.catalog().default_mode.as_deref(), Some("ask"));
    assert_eq!(
        dcode(Some("yolo")).current(MODE).as_deref(),
        Some("yolo"),
        "a session on a yolo process is in yolo"
    );
}

#[test]
fn a_mode_change_is_a_move_after_every_call() {
    let c = dcode(None);
    let plan = c
        .plan("s", &change(Some("yolo"), Some("openai:gpt-5.5")))
        .expect("plan");
    let methods: Vec<&str> = plan.iter().map(|c| c.method).collect();
    assert_eq!(methods, vec![method::SESSION_SET_CONFIG_OPTION, PROCESS]);
    assert_eq!(
        (plan[1].value.as_str(), plan[1].previous.as_deref()),
        ("yolo", Some("ask"))
    );
    assert!(
        c.plan("s", &change(Some("ask"), None))
            .expect("plan")
            .is_empty(),
        "already there"
    );
    let refused = c.plan("s", &change(Some("auto"), None)).unwrap_err();
    assert_eq!(refused.code, Some(ErrorCode::InvalidMode));
}

#[test]
fn an_agent_with_modes_of_its_own_keeps_them() {
    let state: SessionAnswer = serde_json::from_value(json!({"sessionId": "s",
        "modes": {"currentModeId": "default", "availableModes": [{"id": "default"}, {"id": "auto"}]}}))
    .expect("state");
    let profile = crate::profile::builtin("deepagents").expect("profile");
    let c = AcpConfig::for_profile(&state, &profile, Some("yolo"));
    let ids: Vec<String> = c.modes().into_iter().map(|m| m.id).collect();
    assert_eq!(ids, vec!["default", "auto"]);
    let plan = c.plan("s", &change(Some("auto"), None)).expect("plan");
    assert_eq!(plan[0].method, method::SESSION_SET_MODE);
}
