//! What a tool-driven turn did, taken from its session's events, and what happens when it asks
//! for a permission: shown in the panel when it is open, denied (the call failing, saying why)
//! when no one can answer it.

use crate::app::{App, Effect};
use crate::rows;
use crate::session::Phase;
use crate::tools::ToolRun;
use agent_bridge_protocol::{
    ItemBody, PromptResult, ProviderEvent, ProviderInput, ProviderPermissionResponse, ToolStatus,
    TurnState,
};

impl App {
    /// Takes what a tool-driven turn did from one of its session's events (before the session
    /// applies it).
    pub(crate) fn observe_tool_turn(&mut self, index: usize, event: &ProviderEvent) {
        let Some(s) = self.sessions.get_mut(index) else {
            return;
        };
        let label = s.label.clone();
        let Some(t) = s.tool.as_mut().filter(|t| t.is_active()) else {
            return;
        };
        match event {
            ProviderEvent::TimelineItem { item, .. } => match &item.body {
                ItemBody::AssistantMessage { text, .. } => t.text(&item.id, text),
                ItemBody::ToolCall(call) => {
                    let (_, row) = rows::timeline(item, &label);
                    t.tool(ToolRun {
                        id: item.id.clone(),
                        title: row.title,
                        status: call.status,
                    });
                }
                _ => {}
            },
            ProviderEvent::SessionTurn { state, error, .. } if *state != TurnState::Started => {
                t.ended(*state, error.as_ref().map(|e| e.to_string()))
            }
            ProviderEvent::SessionPromptResult { result, .. } => match result {
                PromptResult::Completed => t.ended(TurnState::Completed, None),
                PromptResult::Failed { error } => {
                    t.ended(TurnState::Failed, Some(error.to_string()))
                }
                _ => {}
            },
            ProviderEvent::SessionPermissionResolved { .. } => t.waiting_for = None,
            ProviderEvent::SessionClosed { error, .. } => {
                let why = match error {
                    Some(e) => format!("the session closed: {e}"),
                    None => "the session closed before the turn ended".into(),
                };
                t.ended(TurnState::Failed, Some(why));
            }
            _ => {}
        }
    }

    /// The bridge refused or failed what a tool-driven session needed (its open, its prompt).
    pub(crate) fn fail_tool_turn(&mut self, session_id: &str, why: &str) {
        if let Some(t) = self
            .sessions
            .iter_mut()
            .find(|s| s.id == session_id)
            .and_then(|s| s.tool.as_mut())
        {
            t.ended(TurnState::Failed, Some(why.to_string()));
        }
    }

    /// A tool-driven session asks for a permission: with the panel open it is shown there (the
    /// session becomes the panel's current one) and the call waits; with the panel closed no
    /// one can answer, so it is denied, the turn stopped and the call fails saying so. `None`
    /// when the session is not tool-driven.
    pub(crate) fn tool_asked(&mut self, index: usize, title: &str) -> Option<Vec<Effect>> {
        let s = self.sessions.get_mut(index)?;
        let label = s.label.clone();
        let t = s.tool.as_mut().filter(|t| t.is_active())?;
        if self.panel_open {
            t.waiting_for = Some(title.to_string());
            self.current = Some(index);
            self.set_status(
                format!("{label}, asked by an agent in a pane, waits for your answer"),
                false,
            );
            return Some(Vec::new());
        }
        Some(self.deny_unanswerable(index))
    }

    /// Denies every permission a tool-driven session waits for (the panel is closed), and ends
    /// its call with the reason.
    pub(crate) fn deny_unanswerable(&mut self, index: usize) -> Vec<Effect> {
        let Some(s) = self.sessions.get_mut(index) else {
            return Vec::new();
        };
        let titles: Vec<String> = s
            .pending
            .iter()
            .map(|p| {
                p.request
                    .title
                    .clone()
                    .unwrap_or_else(|| p.request.name.clone())
            })
            .collect();
        let ids: Vec<String> = s.pending.iter().map(|p| p.request.id.clone()).collect();
        let mut effects = Vec::new();
        for id in &ids {
            let response = ProviderPermissionResponse::Deny {
                selected_action_id: None,
                message: Some(
                    "Denied: this turn was asked for by a tool call and nobody can answer \
                     permissions while the Agent Bridge panel is closed."
                        .into(),
                ),
                interrupt: Some(true),
            };
            effects.push(Effect::Bridge {
                provider: s.provider.clone(),
                input: ProviderInput::SessionPermission {
                    session_id: s.id.clone(),
                    permission_id: id.clone(),
                    response,
                },
            });
            s.resolve(id);
        }
        let why = format!(
            "{} asked for a permission ({}) and the Agent Bridge panel is closed, so no one \
             could answer it: it was denied and the turn stopped. Ask for what needs no \
             permission, or ask the user to open the Agent Bridge panel in Agentty and answer \
             it there.",
            s.label,
            titles.join("; ")
        );
        if let Some(t) = s.tool.as_mut() {
            // What waited for the permission does not run: the interrupt stops it.
            for run in t
                .tools
                .iter_mut()
                .filter(|r| r.status == ToolStatus::Running)
            {
                run.status = ToolStatus::Canceled;
            }
            t.ended(TurnState::Failed, Some(why));
        }
        self.dirty = true;
        effects
    }

    pub(crate) fn end_tool_turn(&mut self, index: usize, why: String) {
        if let Some(s) = self.sessions.get_mut(index) {
            s.queued.clear();
            s.phase = Phase::Closed;
            if let Some(t) = s.tool.as_mut() {
                t.ended(TurnState::Failed, Some(why));
            }
        }
        self.dirty = true;
    }
}
