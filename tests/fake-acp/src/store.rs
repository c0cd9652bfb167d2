//! Where the fake keeps its sessions: in memory, and, when `FAKE_ACP_STORE` names a folder, one
//! `<sessionId>.json` file each there (so a second process can `session/load` and list them),
//! plus `log.jsonl`, every message the fake received (`{"pid", "msg"}`), for the tests to read.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;

/// One stored session.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub session_id: String,
    pub cwd: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub updated_at: String,
    /// Every `session/update` of the session, the user's prompts included, in order.
    #[serde(default)]
    pub history: Vec<Value>,
    /// The user message a pending revert goes back to (`POST /session/{id}/revert`); the next
    /// prompt drops it and everything after, as OpenCode does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert: Option<String>,
    /// User messages made so far (their ids are never reused, reverted or not).
    #[serde(default)]
    pub messages_made: u64,
    /// When archived through the HTTP server (ms; `0`: unarchived).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived: Option<u64>,
}

impl Record {
    /// The ids of the user messages (`messageId` of the user chunks), in order.
    pub fn user_messages(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for u in &self.history {
            if u["sessionUpdate"] == "user_message_chunk" {
                if let Some(id) = u["messageId"].as_str() {
                    if out.last().map(String::as_str) != Some(id) {
                        out.push(id.to_string());
                    }
                }
            }
        }
        out
    }

    /// Drops the user message `id` and everything after it.
    pub fn cut_at(&mut self, id: &str) {
        if let Some(at) = self
            .history
            .iter()
            .position(|u| u["sessionUpdate"] == "user_message_chunk" && u["messageId"] == id)
        {
            self.history.truncate(at);
        }
    }
}

pub struct Store {
    dir: Option<PathBuf>,
    next: u64,
    /// The `once` turns run (without a store folder).
    ran: std::collections::HashSet<usize>,
}

impl Store {
    pub fn from_env() -> Store {
        let dir = std::env::var_os("FAKE_ACP_STORE").map(PathBuf::from);
        if let Some(dir) = &dir {
            let _ = std::fs::create_dir_all(dir);
        }
        Store {
            dir,
            next: 1,
            ran: Default::default(),
        }
    }

    /// A new session id: `fake-<n>`, the first n not yet taken in the store.
    pub fn new_id(&mut self) -> String {
        loop {
            let id = format!("fake-{}", self.next);
            self.next += 1;
            let Some(dir) = &self.dir else { return id };
            // Taking the file reserves the id against another process of the same store.
            let taken = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(dir.join(format!("{id}.json")));
            if taken.is_ok() {
                return id;
            }
        }
    }

    pub fn save(&self, record: &Record) {
        let Some(dir) = &self.dir else { return };
        let path = dir.join(format!("{}.json", record.session_id));
        let tmp = dir.join(format!(".{}.{}.tmp", record.session_id, std::process::id()));
        if let Ok(text) = serde_json::to_string(record) {
            if std::fs::write(&tmp, text).is_ok() {
                let _ = std::fs::rename(&tmp, &path);
            }
        }
    }

    pub fn load(&self, session_id: &str) -> Option<Record> {
        let dir = self.dir.as_ref()?;
        let text = std::fs::read_to_string(dir.join(format!("{session_id}.json"))).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Every stored session (in `cwd` when given), by id.
    pub fn list(&self, cwd: Option<&str>) -> Vec<Record> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        let mut out: Vec<Record> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str::<Record>(&t).ok())
            .filter(|r| cwd.is_none_or(|c| r.cwd == c))
            .collect();
        out.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        out
    }

    /// True the first time the `once` turn `index` runs in this store (any process).
    pub fn first_time(&mut self, index: usize) -> bool {
        match &self.dir {
            Some(dir) => std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(dir.join(format!("once-{index}")))
                .is_ok(),
            None => self.ran.insert(index),
        }
    }

    /// Appends a received message to `log.jsonl`.
    pub fn log(&self, msg: &Value) {
        let Some(dir) = &self.dir else { return };
        let line = json!({"pid": std::process::id(), "msg": msg}).to_string() + "\n";
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("log.jsonl"))
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}
