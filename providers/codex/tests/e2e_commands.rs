//! Commands end to end (real bridge, real pinned `codex app-server`, mock model): Codex's
//! skills (`skills/list`, republished on `skills/changed`) run as `$name` mentions with their
//! `SKILL.md`, and the custom prompts of `$CODEX_HOME/prompts` run expanded; an unknown name
//! or arguments that do not fit a prompt are refused.

mod common;

use agent_bridge_conformance::input;
use common::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
    std::fs::write(path, text).expect("file");
}

fn write_skill(workdir: &Path, name: &str, body: &str) {
    let text = format!("---\nname: {name}\ndescription: The {name} skill\n---\n{body}\n");
    write(
        &workdir
            .join(".agents")
            .join("skills")
            .join(name)
            .join("SKILL.md"),
        &text,
    );
}

fn names(commands: &Value) -> Vec<String> {
    commands
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// The newest `session.commands` list naming `name` (waited for).
async fn commands_with(rig: &Rig, session: &str, name: &str) -> Vec<Value> {
    let event = rig
        .wait(session, "session.commands", |e| {
            e.at("/commands")
                .is_some_and(|c| names(c).iter().any(|n| n == name))
        })
        .await;
    event
        .at("/commands")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Sends `/name arguments` as a `command` prompt; its result.
async fn command(rig: &Rig, session: &str, name: &str, arguments: &str) -> Value {
    let cmid = rig.host.unique("cmd");
    rig.send(input::command(session, &cmid, name, arguments))
        .await;
    rig.prompt_result(session, &cmid).await
}

/// Runs `/name arguments`; it must start a turn that completes.
async fn run_command(rig: &Rig, session: &str, name: &str, arguments: &str) {
    let result = command(rig, session, name, arguments).await;
    assert_eq!(result["type"], "turn", "/{name}: {result}");
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end(session, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "/{name}");
}

/// The texts of the user messages of the last model request.
fn last_user_texts(rig: &Rig) -> Vec<String> {
    let body = rig.last_model_request().body;
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["role"] == "user")
        .flat_map(|i| i["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|c| c["text"].as_str().map(str::to_string))
        .collect()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_prompts_are_listed_and_run_expanded() {
    let Some(rig) = rig().await else { return };
    let prompts = rig.env.config_dir.join("prompts");
    write(
        &prompts.join("review.md"),
        "---\ndescription: Review a file\nargument-hint: <file> [focus]\n---\nReview $1 with care: $ARGUMENTS (marker-5531)\n",
    );
    write(&prompts.join("greet.md"), "Greet $NAME warmly (marker-77)");
    rig.open("s-cp", json!({})).await;
    let listed = commands_with(&rig, "s-cp", "prompts:review").await;
    let review = listed
        .iter()
        .find(|c| c["name"] == "prompts:review")
        .cloned();
    assert_eq!(
        review,
        Some(
            json!({"name": "prompts:review", "description": "Review a file", "argumentHint": "<file> [focus]"})
        )
    );
    assert!(names(&json!(listed)).contains(&"prompts:greet".to_string()));

    // Positional arguments, split like a shell does.
    run_command(&rig, "s-cp", "prompts:review", r#"src/lib.rs "be brief""#).await;
    let sent = last_user_texts(&rig);
    assert_eq!(
        sent.last().map(String::as_str),
        Some("Review src/lib.rs with care: src/lib.rs be brief (marker-5531)"),
        "{sent:#?}"
    );
    let user = of_type(&rig.timeline("s-cp"), "user_message")
        .last()
        .map(|u| u["text"].clone());
    assert_eq!(
        user,
        Some(json!(r#"/prompts:review src/lib.rs "be brief""#))
    );

    // Named placeholders: all required.
    let refused = command(&rig, "s-cp", "prompts:greet", "").await;
    assert_eq!(refused["type"], "failed", "{refused}");
    assert_eq!(refused["error"]["code"], "invalid_arguments", "{refused}");
    run_command(&rig, "s-cp", "prompts:greet", "NAME=Ada").await;
    assert_eq!(
        last_user_texts(&rig).last().map(String::as_str),
        Some("Greet Ada warmly (marker-77)")
    );

    // An unknown command is refused, naming what there is.
    let unknown = command(&rig, "s-cp", "prompts:nope", "").await;
    assert_eq!(unknown["type"], "failed", "{unknown}");
    assert_eq!(unknown["error"]["code"], "unknown_command", "{unknown}");
    let message = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("prompts:review"), "{message}");

    // A prompt added while the session runs: read again before a command runs (Codex says
    // nothing of this folder), so it runs and the host's list follows.
    write(&prompts.join("later.md"), "Later prompt (marker-9090)");
    run_command(&rig, "s-cp", "prompts:later", "").await;
    assert_eq!(
        last_user_texts(&rig).last().map(String::as_str),
        Some("Later prompt (marker-9090)")
    );
    commands_with(&rig, "s-cp", "prompts:later").await;
    rig.finish("s-cp").await;
    rig.report("custom-prompts");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_listed_run_and_republished_when_added() {
    let Some(rig) = rig().await else { return };
    write_skill(
        &rig.env.workdir,
        "kiwi",
        "Answer with the word kiwi-skill-8812.",
    );
    rig.open("s-sk", json!({})).await;
    let listed = commands_with(&rig, "s-sk", "kiwi").await;
    let kiwi = listed.iter().find(|c| c["name"] == "kiwi").cloned();
    assert_eq!(
        kiwi,
        Some(json!({"name": "kiwi", "description": "The kiwi skill"}))
    );
    // Codex's own system skills are there too.
    assert!(names(&json!(listed)).contains(&"skill-creator".to_string()));

    // A skill runs as Codex's composer sends it: the `$name` mention and the skill item,
    // which makes Codex hand the model the skill's instructions.
    run_command(&rig, "s-sk", "kiwi", "the garden").await;
    let sent = last_user_texts(&rig);
    assert!(sent.iter().any(|t| t == "$kiwi the garden"), "{sent:#?}");
    assert!(
        sent.iter().any(|t| t.contains("kiwi-skill-8812")),
        "the skill's instructions reached the model: {sent:#?}"
    );

    // A skill added while the session runs: Codex says `skills/changed`, the bridge lists the
    // skills again and republishes.
    write_skill(
        &rig.env.workdir,
        "mango",
        "Answer with the word mango-skill-3301.",
    );
    let again = commands_with(&rig, "s-sk", "mango").await;
    assert!(names(&json!(again)).contains(&"kiwi".to_string()));
    run_command(&rig, "s-sk", "mango", "").await;
    let sent = last_user_texts(&rig);
    assert!(
        sent.iter().any(|t| t.contains("mango-skill-3301")),
        "{sent:#?}"
    );
    rig.finish("s-sk").await;
    rig.report("skills-live");
}
