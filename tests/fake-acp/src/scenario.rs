//! The scenario a fake agent plays: what `initialize` and `session/new` advertise, and per
//! prompt which steps the turn runs. Read once at start from the JSON file named by
//! `FAKE_ACP_SCENARIO` (none: the defaults below, every prompt echoed).

use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Scenario {
    /// What `initialize` advertises.
    pub capabilities: Capabilities,
    /// `modes` of `session/new` / `session/load` (ACP `SessionModeState`), as is.
    pub modes: Option<Value>,
    /// `models` of `session/new` (ACP `SessionModelState`), as is.
    pub models: Option<Value>,
    /// `configOptions` of `session/new` (ACP `SessionConfigOption`s), as is.
    pub config_options: Option<Vec<Value>>,
    /// Lines written to stderr at start.
    pub stderr: Vec<String>,
    /// Steps run right after the `initialize` answer (a garbage line, an exit...).
    pub after_initialize: Vec<Step>,
    /// Per prompt: the first turn whose `match` is in the prompt's text runs; none matching:
    /// the prompt's text is echoed as one `agent_message_chunk`.
    pub turns: Vec<Turn>,
    /// Methods answered with "Method not found" although advertised.
    pub refuse: Vec<String>,
    /// OpenCode's order: before answering a `session/set_config_option` of one of these
    /// option ids that it accepted, the agent sends the given number of
    /// `available_commands_update`s, then a `config_option_update` with every option's value,
    /// then the answer (OpenCode announces a model change so, not a mode change).
    pub config_update_before_answer: std::collections::BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Capabilities {
    pub load_session: bool,
    pub list: bool,
    pub resume: bool,
    pub close: bool,
    pub image: bool,
}

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            load_session: true,
            list: true,
            resume: false,
            close: true,
            image: false,
        }
    }
}

impl Capabilities {
    /// `agentCapabilities` of the `initialize` answer.
    pub fn to_wire(&self) -> Value {
        let mut session = serde_json::Map::new();
        for (on, name) in [
            (self.list, "list"),
            (self.resume, "resume"),
            (self.close, "close"),
        ] {
            if on {
                session.insert(name.into(), json!({}));
            }
        }
        json!({
            "loadSession": self.load_session,
            "promptCapabilities": {"image": self.image, "audio": false, "embeddedContext": false},
            "mcpCapabilities": {"http": false, "sse": false},
            "sessionCapabilities": session,
        })
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Turn {
    /// A substring of the prompt's text.
    #[serde(rename = "match")]
    pub matches: String,
    pub steps: Vec<Step>,
    /// The `stopReason` of the answer (`end_turn` unless given).
    pub stop_reason: Option<String>,
    /// Runs once per store (a crash that a restarted agent must not repeat when the prompt
    /// carries the conversation over, say); then the prompt goes to the next matching turn.
    pub once: bool,
}

/// One step of a turn (or of `afterInitialize`). Exactly one field is set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Step {
    /// A `session/update` of this session: the ACP update object as is (`sessionUpdate` ...).
    pub update: Option<Value>,
    /// `session/request_permission`; the turn waits for the answer.
    pub permission: Option<Permission>,
    /// The prompt's text sent back as an `agent_message_chunk` (`"echo: <text>"`).
    pub echo: Option<bool>,
    /// Waits until the session's `session/cancel` (then the turn answers `cancelled`).
    pub wait_cancel: Option<bool>,
    /// Never answers this prompt, cancel or not.
    pub hang: Option<bool>,
    /// Waits this long (the only timer: a scenario's explicit delay).
    pub delay_ms: Option<u64>,
    /// Exits with this code (what was written before is flushed first).
    pub exit: Option<i32>,
    /// A line written to stdout as is (garbage).
    pub raw: Option<String>,
    /// A line written to stderr.
    pub stderr: Option<String>,
    /// A request to the client (`method`, `params` as is); the turn waits for its answer, which
    /// the log holds like everything received.
    pub request: Option<Value>,
    /// Answers the prompt with this JSON-RPC error (`code`, `message`) at once.
    pub fail: Option<RpcError>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Permission {
    /// The `toolCall` of the request (a `ToolCallUpdate`).
    pub tool_call: Value,
    /// The options offered (`optionId`, `name`, `kind`); none given: allow once, allow always,
    /// reject once.
    pub options: Option<Vec<Value>>,
    /// The session's mode in which nothing is asked (as if allowed).
    pub unless_mode: Option<String>,
    /// Steps after an `allow_*` option was chosen.
    pub on_allow: Vec<Step>,
    /// Steps after a `reject_*` option was chosen.
    pub on_reject: Vec<Step>,
}

impl Permission {
    pub fn options(&self) -> Vec<Value> {
        self.options.clone().unwrap_or_else(|| {
            vec![
                json!({"optionId": "allow", "name": "Allow", "kind": "allow_once"}),
                json!({"optionId": "always", "name": "Always allow", "kind": "allow_always"}),
                json!({"optionId": "reject", "name": "Reject", "kind": "reject_once"}),
            ]
        })
    }
}

impl Scenario {
    /// The scenario of `FAKE_ACP_SCENARIO` (a file path), else the defaults.
    pub fn load() -> anyhow::Result<Scenario> {
        match std::env::var_os("FAKE_ACP_SCENARIO") {
            None => Ok(Scenario {
                capabilities: Capabilities::default(),
                ..Scenario::default()
            }),
            Some(path) => {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow::anyhow!("cannot read {path:?}: {e}"))?;
                Ok(serde_json::from_str(&text)?)
            }
        }
    }

    /// The turn for a prompt's text; `first_time(i)` tells whether the `once` turn `i` is
    /// still to run (and marks it run).
    pub fn turn_for(&self, text: &str, mut first_time: impl FnMut(usize) -> bool) -> Turn {
        self.turns
            .iter()
            .enumerate()
            .find(|(i, t)| text.contains(&t.matches) && (!t.once || first_time(*i)))
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| Turn {
                matches: String::new(),
                steps: vec![Step {
                    echo: Some(true),
                    ..Step::default()
                }],
                stop_reason: None,
                once: false,
            })
    }
}
