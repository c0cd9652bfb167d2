use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn user(uuid: &str, parent: Option<&str>, text: &str, side: bool) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": side,
           "message": {"role": "user", "content": text}})
}

fn assistant(uuid: &str, parent: &str, text: &str, side: bool) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "isSidechain": side,
           "message": {"id": format!("msg-{uuid}"), "role": "assistant",
                       "content": [{"type": "text", "text": text}]}})
}

fn task(uuid: &str, parent: &str, id: &str, prompt: &str) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "message": {"id": format!("msg-{uuid}"), "role": "assistant", "content": [
               {"type": "tool_use", "id": id, "name": "Task",
                "input": {"description": "Explore", "prompt": prompt, "subagent_type": "general-purpose"}}]}})
}

fn result(uuid: &str, parent: &str, id: &str, agent: Option<&str>) -> Value {
    let mut e = json!({"type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": false,
           "message": {"role": "user", "content": [
               {"type": "tool_result", "tool_use_id": id, "content": "done"}]}});
    if let Some(a) = agent {
        e["toolUseResult"] = json!({"agentId": a, "status": "completed"});
    }
    e
}

/// Two sub-agents inline: one linked by `agentId`, one (no id) by its prompt; the first has
/// two messages, the second one; a stray sidechain matches no call.
pub(crate) fn transcript() -> Vec<Value> {
    let mut side_a = user("a1", None, "look around", true);
    side_a["agentId"] = json!("ag-1");
    let mut side_a2 = assistant("a2", "a1", "SIDE-A found three files", true);
    side_a2["agentId"] = json!("ag-1");
    vec![
        user("m1", None, "explore twice", false),
        task("m2", "m1", "toolu_1", "look around"),
        side_a,
        side_a2,
        result("m3", "m2", "toolu_1", Some("ag-1")),
        task("m4", "m3", "toolu_2", "count lines"),
        user("b1", None, "count lines", true),
        assistant("b2", "b1", "SIDE-B 42 lines", true),
        result("m5", "m4", "toolu_2", None),
        user("x1", None, "unrelated", true),
        assistant("m6", "m5", "MAIN done", false),
    ]
}

#[test]
fn sidechains_go_to_the_call_that_ran_them() {
    let found = inline_sidechains(&transcript());
    let texts = |id: &str| -> Vec<String> {
        found
            .get(id)
            .into_iter()
            .flatten()
            .map(|e| e["uuid"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(texts("toolu_1"), ["a1", "a2"]);
    assert_eq!(texts("toolu_2"), ["b1", "b2"]);
    assert_eq!(found.len(), 2, "the stray sidechain matches nothing");
}

#[test]
fn a_transcript_without_sidechains_has_none() {
    let plain = vec![
        user("m1", None, "hi", false),
        assistant("m2", "m1", "hello", false),
    ];
    assert!(inline_sidechains(&plain).is_empty());
}

#[test]
fn a_transcript_with_inline_sidechains_replays_its_sub_agents_as_children() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("session.jsonl");
    let text: Vec<String> = transcript().iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n")).expect("transcript");
    let (items, children) = crate::transcript::read_history(&path, "s1", "/w", None);
    let main = serde_json::to_string(&items).unwrap_or_default();
    assert!(main.contains("MAIN done"), "{main}");
    assert!(
        !main.contains("SIDE-A") && !main.contains("SIDE-B"),
        "{main}"
    );
    let child_text = |n: usize| serde_json::to_string(&children[n].items).unwrap_or_default();
    assert_eq!(children.len(), 2, "{children:#?}");
    assert!(
        children[0].session_id.ends_with("toolu_1"),
        "{}",
        children[0].session_id
    );
    assert!(
        child_text(0).contains("SIDE-A found three files"),
        "{}",
        child_text(0)
    );
    assert!(children[1].session_id.ends_with("toolu_2"));
    assert!(
        child_text(1).contains("SIDE-B 42 lines"),
        "{}",
        child_text(1)
    );
    // The parent's Task calls link their children.
    for child in &children {
        assert!(main.contains(&child.session_id), "{main}");
    }
}
