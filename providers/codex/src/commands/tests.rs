use super::*;
use agent_bridge_protocol::ErrorCode;
use pretty_assertions::assert_eq;
use serde_json::json;

fn skill(name: &str) -> Skill {
    Skill {
        name: name.into(),
        path: format!("/s/{name}/SKILL.md"),
        description: format!("{name} skill"),
    }
}

fn prompt(name: &str, content: &str) -> CustomPrompt {
    prompts::parse(name, content)
}

fn names(event: Option<AgentEvent>) -> Option<Vec<String>> {
    match event? {
        AgentEvent::Commands(list) => Some(list.into_iter().map(|c| c.name).collect()),
        _ => None,
    }
}

#[test]
fn skills_then_prompts_with_front_matter() {
    let mut c = Commands::new("/w", None);
    c.skills_answered(1, Some(vec![skill("figma")]), vec![]);
    c.set_prompts(vec![
        prompt(
            "draft",
            "---\ndescription: Draft a PR\nargument-hint: [title]\n---\n$1",
        ),
        prompt("plain", "hi"),
    ]);
    assert_eq!(
        c.list(),
        vec![
            ProviderCommand {
                name: "figma".into(),
                description: "figma skill".into(),
                argument_hint: None,
            },
            ProviderCommand {
                name: "prompts:draft".into(),
                description: "Draft a PR".into(),
                argument_hint: Some("[title]".into()),
            },
            ProviderCommand {
                name: "prompts:plain".into(),
                description: "send saved prompt".into(),
                argument_hint: None,
            },
        ]
    );
}

#[test]
fn the_open_waits_for_no_listing_and_each_change_is_published_once() {
    // The listing has not answered when the open ends: the open publishes nothing.
    let mut c = Commands::new("/w", None);
    assert_eq!(c.set_prompts(vec![prompt("p", "x")]).is_none(), true);
    assert_eq!(c.open_list(), vec![]);
    // Its answer publishes the whole list.
    assert_eq!(
        names(c.skills_answered(1, Some(vec![skill("a")]), vec![prompt("p", "x")])),
        Some(vec!["a".into(), "prompts:p".into()])
    );
    // The same list again is no event; an older answer is dropped.
    assert_eq!(
        names(c.skills_answered(2, Some(vec![skill("a")]), vec![prompt("p", "x")])),
        None
    );
    assert_eq!(names(c.skills_answered(1, Some(vec![]), vec![])), None);
    // A failed listing keeps the skills known.
    assert_eq!(
        names(c.skills_answered(3, None, vec![])),
        Some(vec!["a".into()])
    );

    // Answered before the open ended: the open has it all, and nothing follows.
    let mut early = Commands::new("/w", None);
    assert_eq!(
        names(early.skills_answered(1, Some(vec![skill("b")]), vec![])),
        None
    );
    assert_eq!(early.open_list().len(), 1);
    assert_eq!(names(early.set_prompts(vec![])), None);
    assert_eq!(
        names(early.set_prompts(vec![prompt("q", "")])),
        Some(vec!["b".into(), "prompts:q".into()])
    );
}

#[test]
fn commands_become_codex_input_and_unknown_ones_are_refused() {
    let mut c = Commands::new("/w", None);
    c.skills_answered(
        1,
        Some(vec![skill("figma")]),
        vec![
            prompt("fix", "Fix $1 now ($ARGUMENTS)"),
            prompt("who", "Hi $NAME"),
        ],
    );
    let wire = |name: &str, args: &str| {
        c.input(name, args)
            .map(|items| serde_json::to_value(items).unwrap())
    };
    assert_eq!(
        wire("figma", "the login page").unwrap(),
        json!([
            {"type": "text", "text": "$figma the login page"},
            {"type": "skill", "name": "figma", "path": "/s/figma/SKILL.md"}
        ])
    );
    assert_eq!(
        wire("prompts:fix", "bug-1 'two words'").unwrap(),
        json!([{"type": "text", "text": "Fix bug-1 now (bug-1 two words)"}])
    );
    let e = wire("prompts:who", "").unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::InvalidArguments));
    assert_eq!(
        e.message,
        "/prompts:who: missing NAME: give each as NAME=value"
    );
    let e = wire("nope", "").unwrap_err();
    assert_eq!(e.code, Some(ErrorCode::UnknownCommand));
    assert_eq!(
        e.message,
        "unknown Codex command `/nope` (this session offers: figma, prompts:fix, prompts:who)"
    );
    // A prompt is only reachable under its prefix, a skill only without it.
    assert!(wire("fix", "").is_err());
    assert!(wire("prompts:figma", "").is_err());
    assert_eq!(
        Commands::new("/w", None)
            .input("x", "")
            .unwrap_err()
            .message,
        "unknown Codex command `/x` (this session offers: none)"
    );
}
