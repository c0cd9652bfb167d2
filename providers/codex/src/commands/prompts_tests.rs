use super::*;
use pretty_assertions::assert_eq;

fn prompt(content: &str) -> CustomPrompt {
    CustomPrompt {
        name: "p".into(),
        content: content.into(),
        description: None,
        argument_hint: None,
    }
}

#[test]
fn front_matter_gives_description_and_hint_and_is_left_out_of_the_body() {
    let text = "---\nname: ignored\ndescription: \"Quick review\"\nargument-hint: '[file] [priority]'\n# comment\n---\nReview $1 at $2\nthen stop";
    assert_eq!(
        parse("review", text),
        CustomPrompt {
            name: "review".into(),
            content: "Review $1 at $2\nthen stop".into(),
            description: Some("Quick review".into()),
            argument_hint: Some("[file] [priority]".into()),
        }
    );
    let underscore = parse("r", "---\nargument_hint: <x>\n---\nbody");
    assert_eq!(underscore.argument_hint.as_deref(), Some("<x>"));
    assert_eq!(underscore.description, None);
    // No front matter, or one never closed: the whole file is the prompt.
    assert_eq!(parse("r", "just text\n").content, "just text\n");
    let open = "---\ndescription: x\nno end";
    assert_eq!(parse("r", open), prompt_named("r", open));
}

fn prompt_named(name: &str, content: &str) -> CustomPrompt {
    CustomPrompt {
        name: name.into(),
        ..prompt(content)
    }
}

#[test]
fn positional_placeholders_take_shell_words() {
    let p = prompt("Fix $1 in $2 (all: $ARGUMENTS), not $3; cost $$5 and $x");
    assert_eq!(
        expand(&p, r#"bug-12 "src/a b.rs""#).unwrap(),
        "Fix bug-12 in src/a b.rs (all: bug-12 src/a b.rs), not ; cost $$5 and $x"
    );
    assert_eq!(
        expand(&p, "").unwrap(),
        "Fix  in  (all: ), not ; cost $$5 and $x"
    );
    assert_eq!(
        expand(&prompt("no placeholders"), "a b").unwrap(),
        "no placeholders"
    );
    assert_eq!(expand(&prompt("$ARGUMENTS"), "  a   b ").unwrap(), "a b");
    assert_eq!(expand(&prompt("end $"), "a").unwrap(), "end $");
}

#[test]
fn named_placeholders_take_assignments_and_are_all_required() {
    let p = prompt("Review $USER on $BRANCH_2 ($USER again, $$USER kept, $ARGUMENTS, $1)");
    assert_eq!(named_placeholders(&p.content), vec!["USER", "BRANCH_2"]);
    assert_eq!(
        expand(&p, r#"USER="Alice Smith" BRANCH_2=main"#).unwrap(),
        "Review Alice Smith on main (Alice Smith again, $$USER kept, $ARGUMENTS, $1)"
    );
    assert_eq!(
        expand(&p, "USER=a"),
        Err(ExpandError::Missing(vec!["BRANCH_2".into()]))
    );
    assert_eq!(
        expand(&p, "USER=a stray"),
        Err(ExpandError::NotAnAssignment("stray".into()))
    );
    assert_eq!(expand(&p, "=x"), Err(ExpandError::EmptyName("=x".into())));
    assert_eq!(
        ExpandError::Missing(vec!["A".into(), "B".into()]).to_string(),
        "missing A, B: give each as NAME=value"
    );
}

#[test]
fn words_split_like_a_shell() {
    assert_eq!(
        split(r#"a 'b c' "d \"e\" \x" f\ g ''"#).unwrap(),
        vec!["a", "b c", r#"d "e" \x"#, "f g", ""]
    );
    assert_eq!(split("   ").unwrap(), Vec::<String>::new());
    assert_eq!(
        split("a 'b"),
        Err(ExpandError::UnclosedQuote("a 'b".into()))
    );
}

#[test]
fn the_folder_is_codex_home_s_and_only_markdown_files_count() {
    assert_eq!(
        dir(Some("/c"), Some("/h")),
        Some(PathBuf::from("/c/prompts"))
    );
    assert_eq!(
        dir(Some(""), Some("/h")),
        Some(PathBuf::from("/h/.codex/prompts"))
    );
    assert_eq!(dir(None, None), None);

    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("b.md"), "B $1").unwrap();
    std::fs::write(d.join("a.MD"), "---\ndescription: first\n---\nA").unwrap();
    std::fs::write(d.join("notes.txt"), "no").unwrap();
    std::fs::write(d.join("bad.md"), [0xFF, 0xFE]).unwrap();
    std::fs::create_dir(d.join("sub.md")).unwrap();
    let found = discover(d);
    let names: Vec<&str> = found.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b"]);
    assert_eq!(found[0].description.as_deref(), Some("first"));
    assert_eq!(discover(&d.join("missing")), Vec::new());
}
