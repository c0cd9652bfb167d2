//! End-to-end slash commands (real bridge, real pinned `claude`, mock model): the open-time
//! list, a project command run natively, and a command added while the session runs
//! republished (the CLI's `system/commands_changed`) and then run.

mod common;

use agent_bridge_conformance::input;
use common::*;
use serde_json::Value;
use std::path::Path;

fn write_command(workdir: &Path, name: &str, description: &str, body: &str) {
    let dir = workdir.join(".claude").join("commands");
    std::fs::create_dir_all(&dir).expect("commands dir");
    let text = format!("---\ndescription: {description}\n---\n{body}\n");
    std::fs::write(dir.join(format!("{name}.md")), text).expect("command file");
}

fn names(commands: &Value) -> Vec<String> {
    commands
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// Runs `/name` as a `command` prompt; it must start a turn that completes.
async fn run_command(rig: &Rig, session: &str, name: &str) {
    let cmid = rig.host.unique("cmd");
    rig.send(input::command(session, &cmid, name, "")).await;
    let result = rig.prompt_result(session, &cmid).await;
    assert_eq!(result["type"], "turn", "/{name}: {result}");
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end(session, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "/{name}");
}

fn model_saw(rig: &Rig, needle: &str) -> bool {
    rig.mock
        .model_requests()
        .iter()
        .any(|r| r.body.to_string().contains(needle))
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_commands_are_listed_run_and_republished_when_added() {
    let Some(rig) = patient_rig().await else {
        return;
    };
    write_command(
        &rig.env.workdir,
        "kiwi",
        "Kiwi word",
        "Say the word kiwi-7731",
    );
    let opened = rig.open("s-cmds", serde_json::json!({})).await;
    let listed = opened
        .iter()
        .rfind(|e| e.is("session.commands"))
        .and_then(|e| e.at("/commands").cloned())
        .unwrap_or_default();
    let listed = names(&listed);
    assert!(listed.contains(&"kiwi".to_string()), "{listed:?}");
    assert!(listed.contains(&"reload-skills".to_string()), "{listed:?}");
    assert!(!listed.contains(&"banana".to_string()), "{listed:?}");

    // A listed project command runs natively: the CLI expands it for the model.
    run_command(&rig, "s-cmds", "kiwi").await;
    assert!(
        model_saw(&rig, "kiwi-7731"),
        "the model got the command's prompt"
    );

    // A command added while the session runs: the CLI announces its new list (here after
    // `/reload-skills`, itself a listed command) and the bridge republishes it.
    write_command(
        &rig.env.workdir,
        "banana",
        "Banana word",
        "Say the word banana-4410",
    );
    run_command(&rig, "s-cmds", "reload-skills").await;
    let republished = rig
        .wait("s-cmds", "session.commands", |e| {
            e.at("/commands")
                .is_some_and(|c| names(c).contains(&"banana".to_string()))
        })
        .await;
    let entry = republished
        .at("/commands")
        .and_then(Value::as_array)
        .and_then(|l| l.iter().find(|c| c["name"] == "banana").cloned())
        .expect("banana entry");
    assert_eq!(entry["description"], "Banana word (project)");
    assert!(names(republished.at("/commands").unwrap_or(&Value::Null)).contains(&"kiwi".into()));

    run_command(&rig, "s-cmds", "banana").await;
    assert!(
        model_saw(&rig, "banana-4410"),
        "the new command ran natively"
    );
    rig.finish("s-cmds").await;
    rig.report("commands-live");
}
