//! Session transcripts on disk: `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/<slug>/<id>.jsonl`,
//! and rebuilding a timeline from one (history replay).

use crate::normalize::{Mode, NormEvent, Normalizer};
use crate::wire::CliMessage;
use agent_bridge_core::ChildSession;
use agent_bridge_protocol::TimelineItem;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Longest slug kept whole; longer ones are cut and get a hash suffix.
pub const MAX_SLUG: usize = 200;

/// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects` for the CLI's environment.
pub fn projects_dir(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    if let Some(dir) = env.get("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("projects"));
    }
    env.get("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".claude").join("projects"))
}

/// JavaScript's 32-bit `(h << 5) - h + c` string hash, as base 36 of its absolute value.
pub fn simple_hash(s: &str) -> String {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h.wrapping_shl(5).wrapping_sub(h).wrapping_add(unit as i32);
    }
    let mut n = (h as i64).unsigned_abs();
    if n == 0 {
        return "0".into();
    }
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 {
        out.push(digits[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The project folder name of a cwd: every non-alphanumeric character becomes `-`; a slug
/// longer than 200 characters is cut and gets `-<hash>`.
pub fn slug(cwd: &str) -> String {
    let sanitized: String = cwd
        .encode_utf16()
        .map(|u| {
            char::from_u32(u32::from(u))
                .filter(char::is_ascii_alphanumeric)
                .unwrap_or('-')
        })
        .collect();
    if sanitized.len() <= MAX_SLUG {
        sanitized
    } else {
        format!("{}-{}", &sanitized[..MAX_SLUG], simple_hash(cwd))
    }
}

/// The project folder of a cwd, tolerating a different hash suffix for long paths (the CLI
/// hashes with Bun's hash, not the JavaScript one).
pub fn find_project_dir(projects: &Path, cwd: &str) -> Option<PathBuf> {
    let mut candidates = vec![cwd.to_string()];
    if let Ok(real) = std::fs::canonicalize(cwd) {
        let real = real.display().to_string();
        if real != cwd {
            candidates.push(real);
        }
    }
    for c in &candidates {
        let exact = projects.join(slug(c));
        if exact.is_dir() {
            return Some(exact);
        }
    }
    for c in &candidates {
        let s = slug(c);
        if s.len() <= MAX_SLUG {
            continue;
        }
        let prefix = format!("{}-", &s[..MAX_SLUG]);
        for entry in std::fs::read_dir(projects).ok()?.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) && entry.path().is_dir() {
                return Some(entry.path());
            }
        }
    }
    None
}

/// The transcript of a session: in the cwd's project folder, else in any project folder.
pub fn find_transcript(projects: &Path, cwd: &str, session_id: &str) -> Option<PathBuf> {
    let file = format!("{session_id}.jsonl");
    if let Some(dir) = find_project_dir(projects, cwd) {
        let p = dir.join(&file);
        if p.is_file() {
            return Some(p);
        }
    }
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .map(|e| e.path().join(&file))
        .find(|p| p.is_file())
}

pub(crate) fn read_lines(path: &Path) -> Vec<Value> {
    match std::fs::read_to_string(path) {
        Ok(text) => text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect(),
        Err(e) => {
            tracing::warn!("cannot read transcript {}: {e}", path.display());
            Vec::new()
        }
    }
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The visible main-chain entries, oldest first: walk `parentUuid` back from the newest leaf.
pub fn main_chain(entries: &[Value]) -> Vec<Value> {
    main_chain_at(entries, None)
}

/// [`main_chain`] ending at the entry `leaf` when given (a conversation rewound there) and
/// present.
pub fn main_chain_at(entries: &[Value], leaf: Option<&str>) -> Vec<Value> {
    let chain_types = ["user", "assistant", "system", "attachment", "progress"];
    let members: Vec<&Value> = entries
        .iter()
        .filter(|e| e.get("uuid").and_then(Value::as_str).is_some())
        .filter(|e| {
            e.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| chain_types.contains(&t))
        })
        .collect();
    let by_uuid: HashMap<&str, &Value> = members
        .iter()
        .filter_map(|e| Some((e.get("uuid")?.as_str()?, *e)))
        .collect();
    let parents: HashSet<&str> = members
        .iter()
        .filter_map(|e| e.get("parentUuid")?.as_str())
        .collect();
    let is_visible = |e: &Value| {
        matches!(
            e.get("type").and_then(Value::as_str),
            Some("user" | "assistant")
        ) && !flag(e, "isSidechain")
            && !flag(e, "isMeta")
            && e.get("teamName").is_none()
    };
    // The newest terminal entry of the main chain (not a sidechain).
    let newest = || {
        members
            .iter()
            .rev()
            .find(|e| {
                let uuid = e.get("uuid").and_then(Value::as_str).unwrap_or("");
                !parents.contains(uuid) && !flag(e, "isSidechain")
            })
            .copied()
    };
    let leaf = match leaf.and_then(|id| by_uuid.get(id)) {
        Some(at) => Some(*at),
        None => newest(),
    };
    let Some(mut cur) = leaf else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    loop {
        let uuid = cur.get("uuid").and_then(Value::as_str).unwrap_or("");
        if !seen.insert(uuid.to_string()) {
            break;
        }
        chain.push(cur.clone());
        match cur
            .get("parentUuid")
            .and_then(Value::as_str)
            .and_then(|p| by_uuid.get(p))
        {
            Some(parent) => cur = parent,
            None => break,
        }
    }
    chain.reverse();
    chain.into_iter().filter(|e| is_visible(e)).collect()
}

/// Items in first-appearance order, each at its last snapshot.
#[derive(Default)]
struct Fold {
    order: Vec<String>,
    items: HashMap<String, TimelineItem>,
}

impl Fold {
    fn push(&mut self, item: TimelineItem) {
        if !self.items.contains_key(&item.id) {
            self.order.push(item.id.clone());
        }
        self.items.insert(item.id.clone(), item);
    }

    fn finish(mut self) -> Vec<TimelineItem> {
        self.order
            .iter()
            .filter_map(|id| self.items.remove(id))
            .collect()
    }
}

fn normalize_entries(
    normalizer: &mut Normalizer,
    entries: &[Value],
    fold: &mut Fold,
    children: &mut Vec<(String, ChildSession)>,
    cwd: &str,
) {
    let mut events = Vec::new();
    for entry in entries {
        match serde_json::from_value::<CliMessage>(entry.clone()) {
            Ok(msg) => events.extend(normalizer.handle(&msg)),
            Err(e) => tracing::debug!("skipped a transcript entry: {e}"),
        }
    }
    events.extend(normalizer.finish_replay());
    for ev in events {
        match ev {
            NormEvent::Item(item) => fold.push(item),
            NormEvent::ChildOpened {
                child_session_id,
                title,
                description,
            } => {
                let tool_use_id = child_session_id
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                children.push((
                    tool_use_id,
                    ChildSession {
                        session_id: child_session_id,
                        title,
                        description,
                        cwd: cwd.to_string(),
                        items: Vec::new(),
                    },
                ));
            }
            _ => {}
        }
    }
}

/// The replayed timeline of a transcript (up to `leaf` when given, see [`main_chain_at`]), and
/// its sub-agents as child sessions: from `<session>/subagents/agent-*.jsonl`, linked to their
/// `Task`/`Agent` call by the sidecar `agent-*.meta.json`, or (older CLIs) from the
/// transcript's own `isSidechain` entries (see [`crate::sidechains`]).
pub fn read_history(
    path: &Path,
    paseo_session_id: &str,
    cwd: &str,
    leaf: Option<&str>,
) -> (Vec<TimelineItem>, Vec<ChildSession>) {
    let entries = read_lines(path);
    let chain = main_chain_at(&entries, leaf);
    let mut normalizer = Normalizer::new(paseo_session_id, Mode::Replay);
    let mut fold = Fold::default();
    let mut children = Vec::new();
    normalize_entries(&mut normalizer, &chain, &mut fold, &mut children, cwd);

    let agents_dir = path.with_extension("").join("subagents");
    let mut by_tool: HashMap<String, PathBuf> = HashMap::new();
    for entry in std::fs::read_dir(&agents_dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = entry.path();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if let Some(stem) = name.strip_suffix(".meta.json") {
            let meta: Value = std::fs::read_to_string(&p)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or(Value::Null);
            if let Some(tool) = meta.get("toolUseId").and_then(Value::as_str) {
                by_tool.insert(tool.to_string(), agents_dir.join(format!("{stem}.jsonl")));
            }
        }
    }
    // Older CLIs wrote the sub-agents into this transcript instead.
    let mut inline = crate::sidechains::inline_sidechains(&entries);
    let mut out_children = Vec::new();
    for (tool_use_id, mut child) in children {
        let entries = match by_tool.get(&tool_use_id) {
            Some(file) => Some(
                read_lines(file)
                    .into_iter()
                    .filter(|e| !flag(e, "isMeta"))
                    .collect::<Vec<Value>>(),
            ),
            None => inline.remove(&tool_use_id),
        };
        if let Some(entries) = entries {
            let mut child_norm = Normalizer::new(child.session_id.clone(), Mode::Replay);
            let mut child_fold = Fold::default();
            let mut nested = Vec::new();
            normalize_entries(&mut child_norm, &entries, &mut child_fold, &mut nested, cwd);
            child.items = child_fold.finish();
        }
        out_children.push(child);
    }
    (fold.finish(), out_children)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn slugs_follow_the_cli_rule() {
        assert_eq!(slug("/home/dev/fx/work-claude"), "-home-dev-fx-work-claude");
        assert_eq!(slug("/tmp/a b.c_d"), "-tmp-a-b-c-d");
        let long = format!("/{}", "x".repeat(250));
        let s = slug(&long);
        assert_eq!(s.len(), MAX_SLUG + 1 + simple_hash(&long).len());
        assert!(s.starts_with("-xxx"));
    }

    #[test]
    fn simple_hash_matches_javascript() {
        // (h << 5) - h + c over "abc" = 96354 -> base36 "22ci".
        assert_eq!(simple_hash("abc"), "22ci");
        assert_eq!(simple_hash(""), "0");
    }

    #[test]
    fn chain_follows_parents_from_the_newest_leaf() {
        let e = |uuid: &str, parent: Option<&str>, t: &str| serde_json::json!({"type": t, "uuid": uuid, "parentUuid": parent, "message": {"role": t, "content": uuid}});
        let entries = vec![
            e("a", None, "user"),
            e("b", Some("a"), "assistant"),
            e("c", Some("a"), "assistant"),
            e("d", Some("c"), "user"),
        ];
        let uuids: Vec<String> = main_chain(&entries)
            .iter()
            .map(|v| v["uuid"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(uuids, vec!["a", "c", "d"]);
        // Rewound to `b`: the chain ends there, whatever was written after.
        let at: Vec<String> = main_chain_at(&entries, Some("b"))
            .iter()
            .map(|v| v["uuid"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(at, vec!["a", "b"]);
    }
}
