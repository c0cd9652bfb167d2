//! The session list is bounded: at most `limit` sessions (50 by default), newest first, each
//! read from its head and tail only, unreadable files skipped.

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::fs::File;
use std::io::Write;
use std::time::Duration;

const CWD: &str = "/work/listed";

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn prompt(uuid: &str, text: &str) -> String {
    line(
        json!({"type": "user", "uuid": uuid, "parentUuid": null, "cwd": CWD, "message": {"role": "user", "content": text}}),
    )
}

/// A config dir with `n` small transcripts of `CWD`, session `i` modified `i` minutes after
/// the epoch's first day (so higher is newer).
fn config_dir(n: usize) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("projects").join(transcript::slug(CWD));
    std::fs::create_dir_all(&dir).expect("mkdir");
    for i in 0..n {
        let path = dir.join(format!("00000000-0000-4000-8000-{i:012}.jsonl"));
        std::fs::write(&path, prompt("u1", &format!("question {i}"))).expect("write");
        touch(&path, i as u64);
    }
    (root, dir)
}

fn touch(path: &Path, minutes: u64) {
    let file = File::options().write(true).open(path).expect("open");
    file.set_modified(UNIX_EPOCH + Duration::from_secs(86_400 + minutes * 60))
        .expect("set mtime");
}

fn env_of(root: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([("CLAUDE_CONFIG_DIR".to_string(), root.display().to_string())])
}

#[test]
fn lists_at_most_the_default_limit_newest_first() {
    let (root, _) = config_dir(70);
    let list = list_sessions(&env_of(root.path()), Some(CWD), None, None);
    assert_eq!(list.len(), DEFAULT_LIMIT);
    let firsts: Vec<String> = list
        .iter()
        .take(3)
        .filter_map(|s| s.first_prompt_preview.clone())
        .collect();
    assert_eq!(firsts, vec!["question 69", "question 68", "question 67"]);
    assert_eq!(
        list_sessions(&env_of(root.path()), Some(CWD), None, Some(5)).len(),
        5
    );
}

#[test]
fn a_huge_transcript_is_read_at_its_head_and_tail_only() {
    let (root, dir) = config_dir(3);
    let path = dir.join("11111111-2222-4333-8444-555555555555.jsonl");
    let mut f = File::create(&path).expect("create");
    f.write_all(prompt("u1", "the first question").as_bytes())
        .expect("write");
    let filler = line(
        json!({"type": "assistant", "uuid": "a", "message": {"role": "assistant", "content": [{"type": "text", "text": "y".repeat(4000)}]}}),
    );
    let half = 26 * 1024 * 1024 / filler.len();
    for _ in 0..half {
        f.write_all(filler.as_bytes()).expect("write");
    }
    // Only a reader of the whole file sees this title (a custom title beats an AI title).
    f.write_all(line(json!({"type": "custom-title", "customTitle": "MIDDLE"})).as_bytes())
        .expect("write");
    for _ in 0..half {
        f.write_all(filler.as_bytes()).expect("write");
    }
    f.write_all(line(json!({"type": "ai-title", "aiTitle": "Tail title"})).as_bytes())
        .expect("write");
    f.write_all(line(json!({"type": "last-prompt", "lastPrompt": "the last question"})).as_bytes())
        .expect("write");
    drop(f);
    assert!(std::fs::metadata(&path).expect("stat").len() > 50 * 1024 * 1024);
    touch(&path, 1000);
    // Unreadable entries are skipped: a folder and a dangling link named like transcripts.
    std::fs::create_dir(dir.join("folder.jsonl")).expect("mkdir");
    std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("gone.jsonl")).expect("symlink");

    let list = list_sessions(&env_of(root.path()), Some(CWD), None, None);
    assert_eq!(list.len(), 4, "{list:#?}");
    let huge = &list[0];
    assert_eq!(huge.title.as_deref(), Some("Tail title"));
    assert_eq!(
        huge.first_prompt_preview.as_deref(),
        Some("the first question")
    );
    assert_eq!(
        huge.last_prompt_preview.as_deref(),
        Some("the last question")
    );
    assert_eq!(huge.cwd, CWD);
}
