//! The tools this plugin offers the AI agents in Agentty's panes (API 4, `contributes.tools`
//! with the `mcp.tools` permission): `list_agents` and `ask_agent`. This file holds what needs
//! no state — the arguments, the mode a tool-driven session starts in, a turn's account and the
//! answers' text; [`crate::tool_calls`] runs the calls.
//!
//! Agentty's rules (`crates/agentty-app/src/plugins/mcp.rs` and `docs/plugins/protocol.md`,
//! "Tools for AI agents"): `tools/call {name, arguments, context}` is a request the plugin must
//! answer within 120 s (`CALL_TIMEOUT`), at most 8 calls wait on one plugin (`MAX_PENDING`),
//! arguments are at most 256 KB, the answer is a string, any JSON or MCP content
//! (`{content: [{type: "text", text}], isError}`), and text handed to the agent is cut at
//! 100,000 characters.

use crate::limits::cut;
use agent_bridge_protocol::{ProviderCatalog, ToolStatus, TurnState};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

pub const LIST_AGENTS: &str = "list_agents";
pub const ASK_AGENT: &str = "ask_agent";

/// Agentty's deadline for an answer.
pub const HOST_CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// When a call whose turn still runs is answered with what is done so far: well inside the
/// host's 120 s, so the answer arrives even on a loaded machine.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(100);
/// Overrides [`ANSWER_WITHIN`], in milliseconds (tests use a short one).
pub const ANSWER_WITHIN_ENV: &str = "AGENT_BRIDGE_TOOL_ANSWER_MS";
/// Calls this plugin lets wait at once, as Agentty does (a 9th gets an error result).
pub const MAX_WAITING: usize = 8;
/// Agentty cuts the text at 100,000 characters; the answers stay under it so the cut is ours
/// and says so.
pub const MAX_ANSWER_CHARS: usize = 95_000;
/// Tools listed in a turn's account at most (the newest kept).
pub const TOOLS_LISTED: usize = 40;

/// The answer deadline: [`ANSWER_WITHIN`] or the environment's override (never past 115 s).
pub fn answer_within() -> Duration {
    std::env::var(ANSWER_WITHIN_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .map(|d| d.min(HOST_CALL_TIMEOUT - Duration::from_secs(5)))
        .unwrap_or(ANSWER_WITHIN)
}

/// `ask_agent`'s arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AskArgs {
    pub agent: Option<String>,
    pub prompt: Option<String>,
    pub cwd: Option<String>,
    pub mode: Option<String>,
    pub model: Option<String>,
    pub session: Option<String>,
}

impl AskArgs {
    /// Reads the arguments; unknown keys are ignored, wrong types are refused.
    pub fn parse(arguments: &Value) -> Result<AskArgs, String> {
        let text = |key: &str| -> Result<Option<String>, String> {
            match arguments.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
                Some(_) => Err(format!("`{key}` must be a string")),
            }
        };
        let args = AskArgs {
            agent: text("agent")?,
            prompt: text("prompt")?,
            cwd: text("cwd")?,
            mode: text("mode")?,
            model: text("model")?,
            session: text("session")?,
        };
        if args.session.is_none() && (args.agent.is_none() || args.prompt.is_none()) {
            return Err(
                "give `agent` and `prompt` for a new conversation, or `session` to continue one"
                    .into(),
            );
        }
        Ok(args)
    }
}

/// The mode a tool-driven session starts in when the caller names none: one that cannot
/// write. Claude Code's `plan`, Codex's `read-only`; an agent with neither gets the first mode
/// named like them, else its default when that is not unattended (it then asks before it
/// acts, and an unanswerable ask fails the call), else the first mode that is not unattended.
pub fn read_only_mode(catalog: &ProviderCatalog) -> Option<String> {
    let modes = &catalog.modes;
    let named = |ids: &[&str]| {
        modes
            .iter()
            .find(|m| ids.contains(&m.id.to_ascii_lowercase().as_str()))
            .map(|m| m.id.clone())
    };
    if let Some(id) = named(&["plan", "read-only", "readonly", "read_only"]) {
        return Some(id);
    }
    if let Some(m) = modes.iter().find(|m| {
        let text = format!("{} {}", m.id, m.label).to_ascii_lowercase();
        text.contains("read-only") || text.contains("read only") || text.contains("readonly")
    }) {
        return Some(m.id.clone());
    }
    let attended = |id: &str| {
        modes
            .iter()
            .any(|m| m.id == id && m.is_unattended != Some(true))
    };
    match &catalog.default_mode {
        Some(d) if attended(d) => Some(d.clone()),
        _ => modes
            .iter()
            .find(|m| m.is_unattended != Some(true))
            .map(|m| m.id.clone()),
    }
}

/// How a tool-driven turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEnd {
    pub state: TurnState,
    pub error: Option<String>,
}

/// One tool the agent ran in the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRun {
    pub id: String,
    pub title: String,
    pub status: ToolStatus,
}

/// What a tool-driven turn has done: its assistant texts, the tools it ran, how it ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolTurn {
    pub texts: Vec<(String, String)>,
    pub tools: Vec<ToolRun>,
    pub end: Option<TurnEnd>,
    /// Milliseconds from the call to the turn's end (for the account).
    pub took_ms: Option<u128>,
    /// A permission the agent waits for in the panel (its title).
    pub waiting_for: Option<String>,
    pub started: Option<Instant>,
    /// The session waits for its agent's check and catalog before it opens.
    pub deferred: bool,
}

impl ToolTurn {
    pub fn new() -> ToolTurn {
        ToolTurn {
            started: Some(Instant::now()),
            ..Default::default()
        }
    }

    pub fn is_active(&self) -> bool {
        self.end.is_none()
    }

    pub fn text(&mut self, id: &str, text: &str) {
        match self.texts.iter_mut().find(|(i, _)| i == id) {
            Some(slot) => slot.1 = text.to_string(),
            None => self.texts.push((id.to_string(), text.to_string())),
        }
    }

    pub fn tool(&mut self, run: ToolRun) {
        match self.tools.iter_mut().find(|t| t.id == run.id) {
            Some(slot) => *slot = run,
            None => self.tools.push(run),
        }
    }

    /// The first end wins (a denied permission ends it before the turn's own end arrives).
    pub fn ended(&mut self, state: TurnState, error: Option<String>) {
        if self.end.is_none() {
            self.end = Some(TurnEnd { state, error });
            self.waiting_for = None;
            self.took_ms = self.started.map(|t| t.elapsed().as_millis());
        }
    }

    /// The agent's final text: its last message of the turn.
    pub fn final_text(&self) -> Option<&str> {
        self.texts
            .iter()
            .rev()
            .map(|(_, t)| t.trim())
            .find(|t| !t.is_empty())
    }
}

/// Who answers, for the answer's text.
pub struct Who<'a> {
    pub label: &'a str,
    pub session: &'a str,
}

fn status_word(turn: &ToolTurn) -> &'static str {
    match &turn.end {
        None => "running",
        Some(e) => match e.state {
            TurnState::Completed => "completed",
            TurnState::Failed => "failed",
            TurnState::Canceled => "canceled",
            TurnState::Started => "running",
        },
    }
}

fn tools_account(turn: &ToolTurn) -> String {
    if turn.tools.is_empty() {
        return "Tools it ran: none.".into();
    }
    let mut out = format!("Tools it ran ({}):", turn.tools.len());
    let skip = turn.tools.len().saturating_sub(TOOLS_LISTED);
    if skip > 0 {
        out.push_str(&format!("\n- … {skip} earlier"));
    }
    for t in &turn.tools[skip..] {
        let mark = match t.status {
            ToolStatus::Completed => "done",
            ToolStatus::Failed => "failed",
            ToolStatus::Canceled => "canceled",
            ToolStatus::Running => "running",
        };
        out.push_str(&format!("\n- {} ({mark})", cut(t.title.trim(), 200)));
    }
    out
}

/// The answer to `ask_agent`: the status line (`status: … · session: …`), the agent's text,
/// the account of its tools, and how to go on. A turn that failed is an error result.
pub fn turn_answer(who: &Who, turn: &ToolTurn, waited: Duration) -> Value {
    let status = status_word(turn);
    let mut text = format!(
        "status: {status} · session: {} · agent: {}",
        who.session, who.label
    );
    match &turn.end {
        None => {
            text.push_str(&format!(
                "\n\n{} is still working after {} s; this is what it has done so far.",
                who.label,
                waited.as_secs()
            ));
            if turn.deferred {
                text.push_str(&format!(
                    " It has not started yet: Agent Bridge is still checking {} (its CLI and \
                     its modes).",
                    who.label
                ));
            }
            if let Some(p) = &turn.waiting_for {
                text.push_str(&format!(
                    " It waits for the user's answer to a permission in the Agent Bridge panel: {}",
                    cut(p, 200)
                ));
            }
        }
        Some(end) => {
            if let Some(ms) = turn.took_ms {
                text.push_str(&format!(" · took: {:.1} s", ms as f64 / 1000.0));
            }
            if let Some(e) = &end.error {
                text.push_str(&format!("\n\nThe turn {status}: {}", cut(e, 2_000)));
            }
        }
    }
    let reply = turn.final_text().unwrap_or("");
    let account = tools_account(turn);
    let next = match &turn.end {
        None => format!(
            "The turn goes on (it is in the Agent Bridge panel). Collect the rest with \
             ask_agent {{\"session\": \"{}\"}} and no prompt: that call waits for the turn's end \
             and answers with the whole turn.",
            who.session
        ),
        Some(_) => format!(
            "Continue this conversation with ask_agent {{\"session\": \"{}\", \"prompt\": \"…\"}}.",
            who.session
        ),
    };
    let room = MAX_ANSWER_CHARS.saturating_sub(text.len() + account.len() + next.len() + 200);
    let reply = if reply.chars().count() > room {
        format!(
            "{}\n[… cut: the reply is longer than this tool's answer may be]",
            cut(reply, room)
        )
    } else {
        reply.to_string()
    };
    if !reply.is_empty() {
        let heading = if turn.end.is_some() {
            "Its answer:"
        } else {
            "Its text so far:"
        };
        text.push_str(&format!("\n\n{heading}\n{reply}"));
    } else if turn.end.is_some() {
        text.push_str("\n\nIt wrote no text.");
    }
    text.push_str(&format!("\n\n{account}\n\n{next}"));
    let failed = matches!(&turn.end, Some(e) if e.state == TurnState::Failed);
    content(&text, failed)
}

/// MCP content: one text part, cut under Agentty's 100,000 characters.
pub fn content(text: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": cut(text, MAX_ANSWER_CHARS)}], "isError": is_error})
}

/// An error result: the agent reads `why`.
pub fn error(why: &str) -> Value {
    content(why, true)
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
