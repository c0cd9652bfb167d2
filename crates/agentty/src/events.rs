//! The bridge's events for the panel: each goes to its session, and what it means for the
//! panel (a prompt to send now, a notification, an entry of the sessions index) follows.

use crate::app::{App, Effect};
use crate::limits::cut;
use crate::session::{Happening, Phase};
use agent_bridge_protocol::{ProviderEvent, ProviderInput, TurnState};

impl App {
    /// One event of the bridge.
    pub fn on_bridge_event(&mut self, event: ProviderEvent) -> Vec<Effect> {
        self.dirty = true;
        match event {
            ProviderEvent::Catalog {
                request_id,
                catalog,
            } => {
                if let Some(a) = request_id
                    .strip_prefix("catalog:")
                    .and_then(|p| self.agents.iter_mut().find(|a| a.id == p))
                {
                    a.mode = a.mode.take().or_else(|| catalog.default_mode.clone());
                    a.model = a.model.take().or_else(|| catalog.default_model.clone());
                    a.catalog = Some(catalog);
                }
                Vec::new()
            }
            ProviderEvent::RequestFailed { request_id, error } => {
                self.request_failed(&request_id, &error.to_string());
                Vec::new()
            }
            ProviderEvent::RequestCompleted { .. } | ProviderEvent::Sessions { .. } => Vec::new(),
            event => {
                let Some(index) = event
                    .session_id()
                    .and_then(|id| self.sessions.iter().position(|s| s.id == id))
                else {
                    return Vec::new();
                };
                self.observe_tool_turn(index, &event);
                let happenings = self.sessions[index].apply(event);
                let mut effects = Vec::new();
                for h in happenings {
                    effects.extend(self.happened(index, h));
                }
                effects
            }
        }
    }

    fn happened(&mut self, index: usize, happening: Happening) -> Vec<Effect> {
        let label = self.sessions[index].label.clone();
        match happening {
            Happening::Ready => {
                let s = &mut self.sessions[index];
                let provider = s.provider.clone();
                let session_id = s.id.clone();
                let prompts = std::mem::take(&mut s.queued);
                if !prompts.is_empty() {
                    s.running = Some(String::new());
                }
                prompts
                    .into_iter()
                    .map(|prompt| Effect::Bridge {
                        provider: provider.clone(),
                        input: ProviderInput::SessionPrompt {
                            session_id: session_id.clone(),
                            prompt,
                        },
                    })
                    .collect()
            }
            Happening::TurnEnded { state, reply } => {
                if !self.panel_open {
                    let (text, kind) = match state {
                        TurnState::Completed => {
                            let reply = reply.map(|r| cut(r.trim(), 120)).unwrap_or_default();
                            (format!("{label} finished: {reply}"), "success")
                        }
                        TurnState::Failed => (format!("{label}: the turn failed"), "error"),
                        TurnState::Canceled | TurnState::Started => {
                            (format!("{label}: the turn was interrupted"), "warning")
                        }
                    };
                    self.notify(text, kind);
                }
                Vec::new()
            }
            Happening::Asked(title) => {
                if let Some(effects) = self.tool_asked(index, &title) {
                    return effects;
                }
                if !self.panel_open {
                    self.notify(format!("{label} asks: {}", cut(&title, 120)), "warning");
                }
                Vec::new()
            }
            Happening::Remember => {
                self.remember(index);
                Vec::new()
            }
            Happening::Closed => Vec::new(),
        }
    }

    fn request_failed(&mut self, request_id: &str, why: &str) {
        let (what, id) = request_id.split_once(':').unwrap_or((request_id, ""));
        match what {
            "open" => {
                if let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) {
                    s.phase = Phase::Closed;
                    s.running = None;
                    s.queued.clear();
                    s.error(
                        "open".into(),
                        &format!("The session could not be opened: {why}"),
                    );
                }
                self.fail_tool_turn(id, &format!("The session could not be opened: {why}"));
            }
            "catalog" => {
                tracing::warn!("the catalog of {id} could not be read: {why}");
                self.tools.catalog_failed.insert(id.to_string());
            }
            "close" => tracing::debug!("closing {id}: {why}"),
            _ => self.set_status(why.to_string(), true),
        }
    }

    /// The bridge refused an input the panel sent (admission failed).
    pub fn on_send_failed(&mut self, input: &ProviderInput, why: &str) {
        self.dirty = true;
        if let ProviderInput::SessionOpen { session_id, .. }
        | ProviderInput::SessionPrompt { session_id, .. } = input
        {
            self.fail_tool_turn(session_id, why);
        }
        let session = input
            .session_id()
            .and_then(|id| self.sessions.iter_mut().find(|s| s.id == id));
        match (input, session) {
            (ProviderInput::SessionOpen { .. }, Some(s)) => {
                s.phase = Phase::Closed;
                s.running = None;
                s.queued.clear();
                s.error(
                    "open".into(),
                    &format!("The session could not be opened: {why}"),
                );
            }
            (ProviderInput::SessionPrompt { prompt, .. }, Some(s)) => {
                if s.running.as_deref() == Some("") {
                    s.running = None;
                }
                s.error(format!("prompt:{}", prompt.client_message_id), why);
            }
            _ => self.set_status(why.to_string(), true),
        }
    }
}
