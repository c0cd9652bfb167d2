//! The config surface of a session ([`super::AcpConfig`]): legacy fields and config options.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn state(v: Value) -> SessionAnswer {
    serde_json::from_value(v).expect("state")
}

fn gemini() -> AcpConfig {
    AcpConfig::new(
        &state(json!({"sessionId": "s",
            "modes": {"currentModeId": "default", "availableModes": [
                {"id": "default", "name": "Default"}, {"id": "yolo", "name": "YOLO"}]},
            "models": {"currentModelId": "auto", "availableModels": [
                {"modelId": "auto", "name": "Auto"}, {"modelId": "gemini-2.5-pro"}]}})),
        &["yolo".to_string()],
        &[],
    )
}

#[test]
fn legacy_modes_and_models_are_the_fallback() {
    let c = gemini();
    let s = c.state();
    assert_eq!(s.mode.as_deref(), Some("default"));
    assert_eq!(s.model.as_deref(), Some("auto"));
    assert_eq!(s.modes[1].is_unattended, Some(true));
    let plan = c
        .plan(
            "s",
            &ProviderConfigChanges {
                mode: Some(Some("yolo".into())),
                model: Some(Some("gemini-2.5-pro".into())),
                ..Default::default()
            },
        )
        .expect("plan");
    assert_eq!(
        plan.iter().map(|c| c.method).collect::<Vec<_>>(),
        vec![method::SESSION_SET_MODEL, method::SESSION_SET_MODE]
    );
}

#[test]
fn config_options_come_first_and_a_bad_value_plans_nothing() {
    let c = AcpConfig::new(
        &state(json!({"sessionId": "s",
            "modes": {"currentModeId": "build", "availableModes": [{"id": "build"}]},
            "configOptions": [
                {"id": "mode", "category": "mode", "type": "select", "currentValue": "build",
                 "options": [{"value": "build", "name": "Build"}, {"value": "plan", "name": "Plan"}]},
                {"id": "model", "category": "model", "type": "select", "currentValue": "m/a",
                 "options": [{"group": "g", "name": "G", "options": [{"value": "m/a", "name": "A"}]}]}]})),
        &[],
        &[],
    );
    assert_eq!(c.state().modes.len(), 2);
    assert_eq!(c.state().models[0].id, "m/a");
    let ok = c
        .plan(
            "s",
            &ProviderConfigChanges {
                mode: Some(Some("plan".into())),
                ..Default::default()
            },
        )
        .expect("plan");
    assert_eq!(ok[0].method, method::SESSION_SET_CONFIG_OPTION);
    assert_eq!(
        ok[0].params,
        json!({"sessionId": "s", "configId": "mode", "value": "plan"})
    );
    let bad = c.plan(
        "s",
        &ProviderConfigChanges {
            mode: Some(Some("plan".into())),
            model: Some(Some("nope".into())),
            ..Default::default()
        },
    );
    assert_eq!(
        bad.map_err(|e| e.code),
        Err(Some(agent_bridge_protocol::ErrorCode::InvalidModel))
    );
}
