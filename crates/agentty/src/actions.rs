//! What the user does in the panel (`ui/event`) and in the palette (`command/execute`), and
//! Agentty's answers to the panel's own requests.

use crate::app::{App, Availability, Effect, Purpose};
use crate::permission::Answer;
use crate::session::{PanelSession, Phase};
use crate::wire::{codes, HostError, UiEvent};
use agent_bridge_protocol::{
    Capability, PromptDelivery, PromptInput, ProviderConfigChanges, ProviderContent, ProviderInput,
    ProviderPrompt,
};
use serde_json::{json, Value};

/// Palette commands (`contributes.commands` of `agentty-plugin.json`).
pub const COMMAND_SECOND_OPINION: &str = "agent-bridge.secondOpinion";
pub const COMMAND_OPEN: &str = "agent-bridge.open";
pub const COMMAND_NEW: &str = "agent-bridge.newSession";
pub const COMMAND_INTERRUPT: &str = "agent-bridge.interrupt";

/// The row action that sends a second opinion's reply to the pane it is about.
pub const SEND_TO_PANE: &str = "send_to_pane";

impl App {
    pub fn on_ui_event(&mut self, ev: &UiEvent) -> Vec<Effect> {
        match (ev.element.as_str(), ev.event.as_str()) {
            ("prompt", "change") => {
                // Typing is not drawn back: the field is the user's until a prompt is sent.
                self.draft = ev.text();
                Vec::new()
            }
            ("prompt", "submit") => self.send(ev.text()),
            ("send", "click") => self.send(self.draft.clone()),
            ("interrupt", "click") => self.interrupt(),
            ("new", "click") => {
                self.new_session();
                Vec::new()
            }
            ("second_opinion", "click") => self.second_opinion(),
            ("agent", "change") => match ev.value.as_ref().and_then(Value::as_str) {
                Some(id) if self.is_available(id) => self.select(id),
                _ => Vec::new(),
            },
            ("mode", "change") => self.configure(ev.value.as_ref(), true),
            ("model", "change") => self.configure(ev.value.as_ref(), false),
            ("timeline", "action") => match (ev.item.as_deref(), ev.action.as_deref()) {
                (Some(row), Some(action)) => self.row_action(row, action),
                _ => Vec::new(),
            },
            ("sessions", "select") => match ev.item.as_deref() {
                Some(key) => self.resume(key),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    pub fn on_command(&mut self, command: &str) -> Vec<Effect> {
        let mut effects = match command {
            COMMAND_SECOND_OPINION => self.second_opinion(),
            COMMAND_NEW => {
                self.new_session();
                Vec::new()
            }
            COMMAND_INTERRUPT => self.interrupt(),
            COMMAND_OPEN => Vec::new(),
            other => {
                tracing::warn!(command = %other, "unknown command");
                return Vec::new();
            }
        };
        effects.push(Effect::Host {
            method: "ui/showPanel",
            params: json!({}),
            purpose: Purpose::ShowPanel,
        });
        effects
    }

    /// Sends `text` as a prompt of the current session (opening it first when needed). A paste
    /// into the one-line `prompt` keeps the `\r` of `\r\n` line ends (Agentty turns only `\n`
    /// into spaces): they are dropped.
    fn send(&mut self, raw: String) -> Vec<Effect> {
        let text = raw.replace('\r', "").trim().to_string();
        if text.is_empty() {
            return Vec::new();
        }
        if self.current().is_none() {
            self.new_session();
        }
        let Some(index) = self.current else {
            self.set_status(
                "No agent is available: see which CLIs are missing above",
                true,
            );
            return Vec::new();
        };
        let cmid = format!("m{}", self.seq());
        let prompt = |delivery| ProviderPrompt {
            client_message_id: cmid.clone(),
            delivery,
            input: PromptInput::Message {
                content: vec![ProviderContent::text(text.clone())],
            },
            output_schema: None,
            clear_pending_permissions: None,
        };
        let effects = self.prompt(index, prompt(PromptDelivery::Auto), prompt);
        if effects.is_some() {
            self.clear_prompt = Some(raw);
            self.draft.clear();
            self.status = None;
        }
        self.dirty = true;
        effects.unwrap_or_default()
    }

    /// Queues or sends `prompt` on session `index`; `None` when it cannot go now.
    pub(crate) fn prompt(
        &mut self,
        index: usize,
        prompt: ProviderPrompt,
        steer: impl Fn(PromptDelivery) -> ProviderPrompt,
    ) -> Option<Vec<Effect>> {
        let s = self.sessions.get_mut(index)?;
        match s.phase {
            Phase::New => {
                s.queued.push(prompt);
                Some(self.open(index))
            }
            Phase::Opening => {
                s.queued.push(prompt);
                Some(Vec::new())
            }
            Phase::Closed => {
                self.set_status("This session has ended: press New to start another", true);
                None
            }
            Phase::Ready if s.is_running() => {
                if s.can(Capability::PromptSteer) {
                    let input = ProviderInput::SessionPrompt {
                        session_id: s.id.clone(),
                        prompt: steer(PromptDelivery::Steer),
                    };
                    Some(vec![Effect::Bridge {
                        provider: s.provider.clone(),
                        input,
                    }])
                } else {
                    self.set_status("A turn is running: interrupt it first", true);
                    None
                }
            }
            Phase::Ready => {
                s.running = Some(String::new());
                let input = ProviderInput::SessionPrompt {
                    session_id: s.id.clone(),
                    prompt,
                };
                Some(vec![Effect::Bridge {
                    provider: s.provider.clone(),
                    input,
                }])
            }
        }
    }

    fn interrupt(&mut self) -> Vec<Effect> {
        let n = self.seq();
        let Some(s) = self.current().filter(|s| s.is_running()) else {
            return Vec::new();
        };
        if s.phase != Phase::Ready {
            return Vec::new();
        }
        vec![Effect::Bridge {
            provider: s.provider.clone(),
            input: ProviderInput::SessionInterrupt {
                request_id: format!("interrupt:{}:{n}", s.id),
                session_id: s.id.clone(),
            },
        }]
    }

    /// A new mode (`mode`) or model: the agent's next sessions get it, an open session of it
    /// is reconfigured.
    fn configure(&mut self, value: Option<&Value>, mode: bool) -> Vec<Effect> {
        let Some(value) = value.and_then(Value::as_str).map(str::to_string) else {
            return Vec::new();
        };
        let Some(provider) = self
            .current()
            .map(|s| s.provider.clone())
            .or(self.selected.clone())
        else {
            return Vec::new();
        };
        if let Some(a) = self.agents.iter_mut().find(|a| a.id == provider) {
            if mode {
                a.mode = Some(value.clone());
            } else {
                a.model = Some(value.clone());
            }
        }
        self.dirty = true;
        let n = self.seq();
        let Some(s) = self.current().filter(|s| s.phase == Phase::Ready) else {
            return Vec::new();
        };
        if !s.can(Capability::SessionConfigure) {
            return Vec::new();
        }
        let mut changes = ProviderConfigChanges::default();
        if mode {
            changes.mode = Some(Some(value));
        } else {
            changes.model = Some(Some(value));
        }
        vec![Effect::Bridge {
            provider: s.provider.clone(),
            input: ProviderInput::SessionConfigure {
                request_id: format!("configure:{}:{n}", s.id),
                session_id: s.id.clone(),
                changes,
            },
        }]
    }

    /// An action on a timeline row: a permission's answer, or sending a reply to the pane.
    fn row_action(&mut self, row: &str, action: &str) -> Vec<Effect> {
        if action == SEND_TO_PANE {
            return self.send_to_pane(row);
        }
        let typed = self.draft.clone();
        let Some(s) = self.current_mut() else {
            return Vec::new();
        };
        let Some(pending) = s.pending.iter_mut().find(|p| p.owns(row)) else {
            return Vec::new();
        };
        let permission_id = pending.request.id.clone();
        match pending.answer(row, action, &typed) {
            Answer::Respond(response) => {
                let input = ProviderInput::SessionPermission {
                    session_id: s.id.clone(),
                    permission_id: permission_id.clone(),
                    response,
                };
                let provider = s.provider.clone();
                // Off the panel at once; the bridge confirms with `permission_resolved`.
                s.resolve(&permission_id);
                self.dirty = true;
                vec![Effect::Bridge { provider, input }]
            }
            Answer::Picked => {
                self.dirty = true;
                Vec::new()
            }
            Answer::Refused(why) => {
                self.set_status(why, true);
                Vec::new()
            }
        }
    }

    /// `sessions` → `select`: shows that session, opening it again (with its history where
    /// the agent replays it) when it is not open.
    fn resume(&mut self, key: &str) -> Vec<Effect> {
        if let Some(i) = self
            .sessions
            .iter()
            .position(|s| s.key == key && s.phase != Phase::Closed)
        {
            self.current = Some(i);
            self.dirty = true;
            return Vec::new();
        }
        let Some(stored) = self.store.get(key).cloned() else {
            return Vec::new();
        };
        let label = self.label(&stored.provider);
        let Some(agent) = self.agent(&stored.provider) else {
            self.set_status(format!("{label} is not in plugin.json any more"), true);
            return Vec::new();
        };
        if agent.availability != Availability::Available {
            self.set_status(format!("{label} is not available here"), true);
            return Vec::new();
        }
        if stored.persistence.is_none()
            || !agent.capabilities.contains(&Capability::SessionPersistence)
        {
            self.set_status(
                format!("{label} did not save that session: it cannot be resumed"),
                true,
            );
            return Vec::new();
        }
        self.sessions.retain(|s| s.key != key);
        let id = format!("{key}~{}", self.seq());
        let mut s = PanelSession::new(id, &stored.provider, &label, stored.cwd.clone());
        s.key = stored.id.clone();
        s.title = stored.title.clone();
        s.persistence = stored.persistence.clone();
        self.sessions.push(s);
        let index = self.sessions.len() - 1;
        self.current = Some(index);
        self.selected = Some(stored.provider.clone());
        self.status = None;
        self.dirty = true;
        self.open(index)
    }

    /// Agentty's answer to a request of the panel.
    pub fn on_host_answer(
        &mut self,
        purpose: Purpose,
        result: Result<Value, HostError>,
    ) -> Vec<Effect> {
        match (purpose, result) {
            (Purpose::Panel, Err(e)) => {
                tracing::warn!("Agentty refused the panel: {} ({})", e.message, e.code);
                Vec::new()
            }
            (Purpose::Panel | Purpose::ShowPanel, _) => Vec::new(),
            (Purpose::SecondOpinion { question }, Ok(answer)) => {
                self.second_opinion_from(&answer, question)
            }
            (Purpose::SecondOpinion { .. }, Err(e)) => {
                let why = host_error("read the pane's conversation", "session.read", &e);
                self.set_status(why, true);
                Vec::new()
            }
            (Purpose::Inject, Ok(answer)) => {
                let text = match answer.get("status").and_then(Value::as_str) {
                    Some("asked") => "Agentty asks where the reply goes",
                    _ => "The reply was sent to the pane",
                };
                self.set_status(text, false);
                Vec::new()
            }
            (Purpose::Inject, Err(e)) => {
                let why = host_error("send the reply to the pane", "prompt.inject", &e);
                self.set_status(why, true);
                Vec::new()
            }
        }
    }
}

/// A refusal of Agentty in words, naming the permission when one is missing.
pub fn host_error(what: &str, permission: &str, e: &HostError) -> String {
    match e.code {
        codes::PERMISSION_DENIED => format!(
            "Cannot {what}: Agentty refused ({}). It needs the \"{permission}\" permission in agentty-plugin.json",
            e.message
        ),
        _ => format!("Cannot {what}: {}", e.message),
    }
}
