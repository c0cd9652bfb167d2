//! The second opinion: the focused pane's conversation (Claude Code or Codex running in
//! Agentty, read with `session/get`) handed to the agent picked in `agent` as a new session,
//! with the text of `prompt` as the question; its reply can go back to the pane with
//! `prompt/inject` (`target: "ask"`: the user picks where and confirms).

use crate::actions::SEND_TO_PANE;
use crate::app::{App, Effect, Purpose};
use crate::limits::{cut, SECOND_CONTEXT_CHARS, SECOND_TURNS, SECOND_TURN_CHARS};
use crate::session::{PaneRef, PanelSession};
use agent_bridge_protocol::{
    PlainTextMime, PromptDelivery, PromptInput, ProviderContent, ProviderPrompt,
    TextAttachmentPart, TextTag,
};
use serde_json::{json, Value};

/// Asked when `prompt` is empty.
pub const DEFAULT_QUESTION: &str = "Here is a conversation another coding agent is having in \
my terminal. Review it: is the approach right? Point out mistakes, risks and what you would do \
differently, briefly.";

/// One turn of the pane's conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneTurn {
    pub user: bool,
    pub text: String,
}

/// The pane's conversation as the second agent reads it: the newest turns that fit, each cut.
pub fn context_text(agent: &str, title: &str, cwd: &str, total: u64, turns: &[PaneTurn]) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut size = 0;
    for t in turns.iter().rev() {
        let who = if t.user { "User" } else { "Assistant" };
        let block = format!("### {who}\n{}\n", cut(t.text.trim(), SECOND_TURN_CHARS));
        if size + block.len() > SECOND_CONTEXT_CHARS && !kept.is_empty() {
            break;
        }
        size += block.len();
        kept.push(block);
    }
    kept.reverse();
    let mut head = format!("The conversation of {agent} in an Agentty pane");
    if !title.trim().is_empty() {
        head.push_str(&format!(" (\"{}\")", cut(title.trim(), 120)));
    }
    if !cwd.is_empty() {
        head.push_str(&format!(", working in {cwd}"));
    }
    head.push_str(&format!(
        ". The last {} of its {total} turns:\n\n",
        kept.len()
    ));
    head + &kept.join("\n")
}

fn turns_of(answer: &Value) -> Vec<PaneTurn> {
    answer
        .get("turns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let text = t.get("text").and_then(Value::as_str)?;
            let user = t.get("role").and_then(Value::as_str) == Some("user");
            Some(PaneTurn {
                user,
                text: text.to_string(),
            })
        })
        .collect()
}

/// How Agentty names a pane's agent, for the people reading it.
fn agent_name(agent: Option<&str>) -> String {
    match agent {
        Some("claude") => "Claude Code".into(),
        Some("codex") => "Codex".into(),
        Some(other) => other.to_string(),
        None => "an agent".into(),
    }
}

impl App {
    /// `second_opinion`: asks Agentty for the focused pane's conversation.
    pub fn second_opinion(&mut self) -> Vec<Effect> {
        if self.selected.is_none() {
            self.set_status("No agent is available to ask", true);
            return Vec::new();
        }
        self.set_status("Reading the pane's conversation…", false);
        let mut params = json!({"maxTurns": SECOND_TURNS});
        if let Some(pane) = self.context.pane_id {
            params["paneId"] = json!(pane);
        }
        vec![Effect::Host {
            method: "session/get",
            params,
            purpose: Purpose::SecondOpinion {
                question: self.draft.trim().to_string(),
            },
        }]
    }

    /// The pane's conversation arrived: a new session of the selected agent is asked.
    pub fn second_opinion_from(&mut self, answer: &Value, question: String) -> Vec<Effect> {
        let Some(provider) = self.selected.clone() else {
            return Vec::new();
        };
        let turns = turns_of(answer);
        if turns.is_empty() {
            self.set_status("The pane's conversation has no turns yet", true);
            return Vec::new();
        }
        let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_string);
        let pane_agent = text("agent");
        let title = text("title").unwrap_or_default();
        let pane_cwd = text("cwd").filter(|c| std::path::Path::new(c).is_dir());
        let total = answer
            .get("turnCount")
            .and_then(Value::as_u64)
            .unwrap_or(turns.len() as u64);
        let name = agent_name(pane_agent.as_deref());
        let cwd = pane_cwd.clone().unwrap_or_else(|| self.cwd());
        let context = context_text(&name, &title, &cwd, total, &turns);
        let asked = if question.is_empty() {
            DEFAULT_QUESTION.to_string()
        } else {
            question.clone()
        };
        let label = self.label(&provider);
        let key = self.new_key();
        let mut s = PanelSession::new(key, &provider, &label, cwd);
        s.title = cut(&format!("Second opinion on {name}: {asked}"), 100);
        s.second = Some(PaneRef {
            pane_id: answer.get("paneId").and_then(Value::as_u64),
            agent: pane_agent,
            cwd: pane_cwd,
            title,
        });
        let cmid = format!("m{}", self.seq());
        s.queued.push(ProviderPrompt {
            client_message_id: cmid,
            delivery: PromptDelivery::Auto,
            input: PromptInput::Message {
                content: vec![
                    ProviderContent::text(asked),
                    ProviderContent::TextAttachment(TextAttachmentPart {
                        kind: TextTag::Text,
                        mime_type: PlainTextMime::TextPlain,
                        context_kind: None,
                        title: Some(format!("The {name} conversation")),
                        text: context,
                        external_resource: None,
                    }),
                ],
            },
            output_schema: None,
            clear_pending_permissions: None,
        });
        self.sessions.push(s);
        let index = self.sessions.len() - 1;
        self.current = Some(index);
        if !question.is_empty() {
            self.clear_prompt = Some(std::mem::take(&mut self.draft));
        }
        self.set_status(format!("Asking {label} about the pane"), false);
        self.open(index)
    }

    /// The row of the current session that can go back to the pane, if any.
    pub fn reply_to_pane(&self) -> Option<&str> {
        let s = self.current()?;
        s.second.as_ref()?;
        if s.is_running() {
            return None;
        }
        s.reply.as_ref().map(|(row, _)| row.as_str())
    }

    /// `send_to_pane` on the reply row: `prompt/inject` with `target: "ask"`.
    pub fn send_to_pane(&mut self, row: &str) -> Vec<Effect> {
        let Some(s) = self.current() else {
            return Vec::new();
        };
        let (Some(pane), Some((reply_row, reply))) = (&s.second, &s.reply) else {
            return Vec::new();
        };
        if reply_row != row {
            return Vec::new();
        }
        let mut params = json!({
            "text": reply,
            "title": format!("Second opinion from {}", s.label),
            "target": "ask",
        });
        if let Some(agent) = &pane.agent {
            params["agent"] = json!(agent);
        }
        if let Some(cwd) = &pane.cwd {
            params["cwd"] = json!(cwd);
        }
        vec![Effect::Host {
            method: "prompt/inject",
            params,
            purpose: Purpose::Inject,
        }]
    }
}

/// The action drawn on the reply row of a second opinion.
pub fn send_action() -> crate::ui::ItemAction {
    crate::ui::ItemAction::new(SEND_TO_PANE, "Send to pane")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_keeps_the_newest_turns_within_its_bound() {
        let turns: Vec<PaneTurn> = (0..100)
            .map(|i| PaneTurn {
                user: i % 2 == 0,
                text: format!("turn {i} {}", "x".repeat(5_000)),
            })
            .collect();
        let text = context_text("Claude Code", "fix", "/w", 100, &turns);
        assert!(text.len() <= SECOND_CONTEXT_CHARS + 400, "{}", text.len());
        assert!(text.contains("turn 99 "), "the newest turn is there");
        assert!(!text.contains("turn 0 "), "the oldest is not");
        assert!(text.starts_with("The conversation of Claude Code in an Agentty pane (\"fix\")"));
    }
}
