//! Scripted replies for tests that need more than the default rules: an ordered queue of
//! steps (consumed only by requests that declare tools, so title/router side calls do not
//! eat them) and regex rules matched against the latest user prompt.
//!
//! JSON form (`mock-llm --script FILE`, `POST /_mock/script`):
//! ```json
//! {"rules": [{"match": "(?i)deploy", "reply": {"text": "no"}, "times": 1}],
//!  "steps": [{"shell": "touch a"}, {"tool_call": {"name": "Read", "arguments": {"file_path": "a"}}},
//!            {"slow_text": {"text": "...", "chunks": 10, "interval_ms": 100}}, {"error": {"status": 500}},
//!            {"namespaced_tool_call": {"namespace": "multi_agent_v1", "name": "spawn_agent"}},
//!            "default"]}
//! ```

use crate::conversation::Conversation;
use crate::reply::{default_reply, shell_call, Reply};
use serde::Deserialize;
use std::collections::VecDeque;
use std::time::Duration;

/// Errors while loading a script.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("invalid script JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("invalid regex {pattern:?}: {source}")]
    Regex {
        pattern: String,
        source: regex_lite::Error,
    },
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptReply {
    /// A text answer.
    Text(String),
    /// A text streamed in `chunks` pieces, `interval_ms` apart.
    SlowText {
        text: String,
        #[serde(default = "default_chunks")]
        chunks: usize,
        #[serde(default = "default_interval_ms")]
        interval_ms: u64,
    },
    /// A call of whichever shell tool the client declared, running this command.
    Shell(String),
    /// A call of a named tool with explicit arguments.
    ToolCall {
        name: String,
        #[serde(default)]
        arguments: serde_json::Value,
    },
    /// A call of tool `name` in the tool group `namespace` (OpenAI Responses only, e.g. Codex's
    /// `{"namespace": "multi_agent_v1", "name": "spawn_agent"}`; other families send a plain
    /// call of `name`).
    NamespacedToolCall {
        namespace: String,
        name: String,
        #[serde(default)]
        arguments: serde_json::Value,
    },
    /// An HTTP error.
    Error {
        status: u16,
        #[serde(default = "default_error_message")]
        message: String,
    },
    /// Whatever the default rules would answer.
    Default,
}

fn default_chunks() -> usize {
    crate::reply::SLOW_CHUNKS
}
fn default_interval_ms() -> u64 {
    crate::reply::SLOW_INTERVAL.as_millis() as u64
}
fn default_error_message() -> String {
    "mock error".into()
}
fn object_or_empty(arguments: &serde_json::Value) -> serde_json::Value {
    if arguments.is_null() {
        serde_json::json!({})
    } else {
        arguments.clone()
    }
}

impl ScriptReply {
    /// The concrete reply for a request.
    pub fn resolve(&self, conv: &Conversation, counter: u64) -> Reply {
        match self {
            ScriptReply::Text(t) => Reply::Text(t.clone()),
            ScriptReply::SlowText {
                text,
                chunks,
                interval_ms,
            } => Reply::SlowText {
                chunks: split_even(text, *chunks),
                interval: Duration::from_millis(*interval_ms),
            },
            ScriptReply::Shell(cmd) => shell_call(&conv.tools, cmd).unwrap_or_else(|| {
                Reply::Text(format!(
                    "(mock) no shell tool declared; wanted to run {cmd}"
                ))
            }),
            ScriptReply::ToolCall { name, arguments } => Reply::ToolCall {
                name: name.clone(),
                arguments: object_or_empty(arguments),
                namespace: None,
            },
            ScriptReply::NamespacedToolCall {
                namespace,
                name,
                arguments,
            } => Reply::ToolCall {
                name: name.clone(),
                arguments: object_or_empty(arguments),
                namespace: Some(namespace.clone()),
            },
            ScriptReply::Error { status, message } => Reply::Error {
                status: *status,
                message: message.clone(),
            },
            ScriptReply::Default => default_reply(conv, counter),
        }
    }
}

/// A regex rule on the latest user prompt.
#[derive(Debug, Clone)]
pub struct Rule {
    pub pattern: regex_lite::Regex,
    pub reply: ScriptReply,
    /// How many more times the rule may fire (`None` = unlimited).
    pub times: Option<usize>,
}

impl Rule {
    pub fn new(pattern: &str, reply: ScriptReply) -> Result<Rule, ScriptError> {
        let regex = regex_lite::Regex::new(pattern).map_err(|source| ScriptError::Regex {
            pattern: pattern.to_string(),
            source,
        })?;
        Ok(Rule {
            pattern: regex,
            reply,
            times: None,
        })
    }
}

/// Rules plus an ordered step queue.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub rules: Vec<Rule>,
    pub steps: Vec<ScriptReply>,
}

#[derive(Deserialize)]
struct ScriptJson {
    #[serde(default)]
    rules: Vec<RuleJson>,
    #[serde(default)]
    steps: Vec<ScriptReply>,
}

#[derive(Deserialize)]
struct RuleJson {
    #[serde(rename = "match")]
    pattern: String,
    reply: ScriptReply,
    #[serde(default)]
    times: Option<usize>,
}

impl Script {
    /// A script of steps only.
    pub fn steps(steps: impl IntoIterator<Item = ScriptReply>) -> Script {
        Script {
            rules: Vec::new(),
            steps: steps.into_iter().collect(),
        }
    }

    /// Adds a rule (builder style).
    pub fn rule(mut self, pattern: &str, reply: ScriptReply) -> Result<Script, ScriptError> {
        self.rules.push(Rule::new(pattern, reply)?);
        Ok(self)
    }

    /// Parses the JSON form (see the module docs).
    pub fn from_json(text: &str) -> Result<Script, ScriptError> {
        let parsed: ScriptJson = serde_json::from_str(text)?;
        let mut rules = Vec::new();
        for r in parsed.rules {
            let mut rule = Rule::new(&r.pattern, r.reply)?;
            rule.times = r.times;
            rules.push(rule);
        }
        Ok(Script {
            rules,
            steps: parsed.steps,
        })
    }
}

/// The mock's live script state.
#[derive(Debug, Default)]
pub struct ScriptState {
    rules: Vec<Rule>,
    steps: VecDeque<ScriptReply>,
}

impl ScriptState {
    /// Appends a script's rules and steps.
    pub fn push(&mut self, script: Script) {
        self.rules.extend(script.rules);
        self.steps.extend(script.steps);
    }

    /// Steps not consumed yet.
    pub fn pending_steps(&self) -> usize {
        self.steps.len()
    }

    /// Chooses the reply: JSON-schema helper calls get synthesized JSON; requests that declare
    /// tools consume the next step; then the first matching rule; then the default rules.
    pub fn decide(&mut self, conv: &Conversation, counter: u64) -> Reply {
        let schema_call = conv.json_schema.is_some() && conv.tools.is_empty();
        if !schema_call && !conv.tools.is_empty() {
            if let Some(step) = self.steps.pop_front() {
                return step.resolve(conv, counter);
            }
        }
        if !schema_call && conv.tool_result.is_none() {
            let prompt = conv.prompt.as_deref().unwrap_or("");
            let hit = self
                .rules
                .iter_mut()
                .find(|r| r.times != Some(0) && r.pattern.is_match(prompt));
            if let Some(rule) = hit {
                if let Some(t) = rule.times.as_mut() {
                    *t -= 1;
                }
                return rule.reply.resolve(conv, counter);
            }
        }
        default_reply(conv, counter)
    }
}

/// Splits `text` into `n` pieces of about equal length (on char boundaries).
fn split_even(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    let size = chars.len().div_ceil(n).max(1);
    let pieces: Vec<String> = chars.chunks(size).map(|c| c.iter().collect()).collect();
    if pieces.is_empty() {
        vec![String::new()]
    } else {
        pieces
    }
}

#[cfg(test)]
#[path = "script_tests.rs"]
mod tests;
