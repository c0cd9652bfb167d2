use super::*;
use agent_bridge_protocol::ActionVariant;
use pretty_assertions::assert_eq;
use serde_json::json;

fn action(id: &str, label: &str, behavior: PermissionBehavior) -> ProviderPermissionAction {
    ProviderPermissionAction {
        id: id.into(),
        label: label.into(),
        behavior,
        variant: Some(ActionVariant::Primary),
        intent: None,
    }
}

fn request(kind: PermissionKind) -> ProviderPermissionRequest {
    ProviderPermissionRequest {
        id: "p1".into(),
        name: "shell".into(),
        kind,
        title: Some("Run `ls`?".into()),
        description: None,
        input: None,
        detail: None,
        suggestions: None,
        actions: None,
        metadata: None,
    }
}

fn ids(rows: &[ListItem]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.actions.iter().map(|a| a.id.clone()).collect())
        .collect()
}

#[test]
fn codex_style_actions_give_allow_allow_always_and_deny() {
    let mut r = request(PermissionKind::Tool);
    r.actions = Some(vec![
        action("allow_once", "Allow once", PermissionBehavior::Allow),
        action(
            "allow_session",
            "Allow for this session",
            PermissionBehavior::Allow,
        ),
        action("deny", "Deny", PermissionBehavior::Deny),
    ]);
    let mut p = Pending::new(r);
    let rows = p.rows();
    assert_eq!(ids(&rows), [["allow", "allow_always", "deny"]]);
    assert_eq!(
        rows[0].actions[1].label.as_deref(),
        Some("Allow for this session")
    );
    assert_eq!(
        p.answer("perm:p1", ALLOW_ALWAYS, ""),
        Answer::Respond(ProviderPermissionResponse::Allow {
            selected_action_id: Some("allow_session".into()),
            updated_input: None,
            updated_permissions: None
        })
    );
    assert!(matches!(
        p.answer("perm:p1", DENY, ""),
        Answer::Respond(ProviderPermissionResponse::Deny { selected_action_id: Some(id), .. })
            if id == "deny"
    ));
}

#[test]
fn claude_suggestions_are_the_always_rules() {
    let mut r = request(PermissionKind::Tool);
    let rule = json!({"type": "addRules", "rules": [{"toolName": "Bash"}]});
    r.suggestions = Some(vec![rule.as_object().cloned().expect("object")]);
    let mut p = Pending::new(r);
    assert_eq!(ids(&p.rows()), [["allow", "allow_always", "deny"]]);
    assert_eq!(
        p.answer("perm:p1", ALLOW_ALWAYS, ""),
        Answer::Respond(ProviderPermissionResponse::Allow {
            selected_action_id: None,
            updated_input: None,
            updated_permissions: Some(vec![rule])
        })
    );
    // Without suggestions or a second allow, there is no "always".
    let mut plain = Pending::new(request(PermissionKind::Tool));
    assert_eq!(ids(&plain.rows()), [["allow", "deny"]]);
    assert!(matches!(
        plain.answer("perm:p1", ALLOW_ALWAYS, ""),
        Answer::Refused(_)
    ));
}

#[test]
fn questions_are_answered_by_their_text_once_all_are_picked() {
    let mut r = request(PermissionKind::Question);
    r.input = json!({"questions": [
        {"id": "color", "header": "Color", "question": "Which color?",
         "options": [{"label": "Red"}, {"label": "Blue", "description": "calm"}]},
        {"id": "name", "header": "Name", "question": "Your name?", "options": [], "isOther": true}
    ]})
    .as_object()
    .cloned();
    let mut p = Pending::new(r);
    let rows = p.rows();
    assert_eq!(
        ids(&rows),
        [vec!["option-0", "option-1", "deny"], vec!["typed"]]
    );
    assert!(p.owns("perm:p1:1") && !p.owns("perm:p10"));
    assert_eq!(p.answer("perm:p1:0", "option-1", ""), Answer::Picked);
    assert!(matches!(
        p.answer("perm:p1:1", TYPED, "  "),
        Answer::Refused(_)
    ));
    let Answer::Respond(ProviderPermissionResponse::Allow { updated_input, .. }) =
        p.answer("perm:p1:1", TYPED, "Ada")
    else {
        panic!("answered")
    };
    assert_eq!(
        Value::Object(updated_input.expect("input")),
        json!({"answers": {"Which color?": "Blue", "Your name?": "Ada"}})
    );
}
