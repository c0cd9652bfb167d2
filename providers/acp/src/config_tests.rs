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

#[test]
fn an_agent_without_modes_runs_in_its_process_flag_mode() {
    // Grok Build 1.0.41: config option `model` only, no modes; its profile starts it with
    // `--always-approve` and names that mode.
    let answer = state(json!({"sessionId": "s", "configOptions": [{"id": "model",
        "category": "model", "type": "select", "currentValue": "mock",
        "options": [{"value": "mock", "name": "Mock"}]}]}));
    let c = AcpConfig::new(&answer, &["always-approve".to_string()], &[]);
    let s = c.state();
    assert_eq!(s.mode.as_deref(), Some("always-approve"));
    assert_eq!(
        s.modes
            .iter()
            .map(|m| (m.id.as_str(), m.is_unattended))
            .collect::<Vec<_>>(),
        vec![("always-approve", Some(true))]
    );
    let same = ProviderConfigChanges {
        mode: Some(Some("always-approve".into())),
        ..Default::default()
    };
    assert_eq!(c.plan("s", &same).expect("plan"), Vec::new());
    // Without a profile mode nothing is invented, and an agent's own modes are left alone.
    assert!(AcpConfig::new(&answer, &[], &[]).state().modes.is_empty());
    assert_eq!(gemini().state().modes.len(), 2);
}
