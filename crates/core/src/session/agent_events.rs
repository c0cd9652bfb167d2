//! What the agent reports: snapshots, permissions, children, usage, config, failures.

use super::*;

impl Actor {
    pub(super) fn pending_permissions(&self) -> Vec<String> {
        match self.shared.lock() {
            Ok(s) => {
                let mut v: Vec<String> = s.pending_permissions.keys().cloned().collect();
                v.sort();
                v
            }
            Err(_) => vec![],
        }
    }

    /// The pending permissions raised during the turn `turn_id`.
    pub(super) fn pending_for(&self, turn_id: &str) -> Vec<String> {
        match self.shared.lock() {
            Ok(s) => {
                let mut v: Vec<String> = s
                    .pending_permissions
                    .iter()
                    .filter(|(_, turn)| turn.as_deref() == Some(turn_id))
                    .map(|(id, _)| id.clone())
                    .collect();
                v.sort();
                v
            }
            Err(_) => vec![],
        }
    }

    pub(super) fn take_pending(&self, id: &str) -> bool {
        self.shared
            .lock()
            .map(|mut s| s.pending_permissions.remove(id).is_some())
            .unwrap_or(false)
    }

    pub(super) async fn permission(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        permission_id: String,
        response: ProviderPermissionResponse,
    ) {
        let stops_turn = matches!(
            response,
            ProviderPermissionResponse::Deny {
                interrupt: Some(true),
                ..
            }
        );
        // The turn a deny with `interrupt` stops: the permission's own, while it runs.
        let raised_in = self
            .shared
            .lock()
            .ok()
            .and_then(|s| s.pending_permissions.get(&permission_id).cloned())
            .flatten();
        if let Err(e) = self
            .call(session.respond_permission(&permission_id, response))
            .await
        {
            tracing::warn!(session = %self.session_id, "answering permission {permission_id} failed: {e}");
        }
        self.resolve_permission(&permission_id).await;
        let active = self.turn.as_ref().map(|t| t.id.clone());
        if stops_turn && active.is_some() && (raised_in.is_none() || raised_in == active) {
            // The agent is told to stop the turn as for an interrupt; the core ends it itself
            // when it does not within the grace.
            if let Some(turn_id) = active {
                if let Err(e) = self.call(session.interrupt(&turn_id)).await {
                    tracing::warn!(session = %self.session_id, "interrupting after a deny failed: {e}");
                }
            }
            if let Some(turn) = self.turn.as_mut() {
                turn.interrupt_deadline
                    .get_or_insert(Instant::now() + INTERRUPT_GRACE);
            }
        }
    }

    /// Denies the permission requests the host cannot answer (see `unanswerable`).
    pub(super) async fn deny_unanswerable(&mut self, session: &mut Box<dyn AgentSession>) {
        for id in std::mem::take(&mut self.unanswerable) {
            let deny = ProviderPermissionResponse::deny(
                "the host did not negotiate the `permission` capability, so it cannot answer",
            );
            if let Err(e) = self.call(session.respond_permission(&id, deny)).await {
                tracing::warn!(session = %self.session_id, "denying permission {id} failed: {e}");
            }
        }
    }

    pub(super) async fn resolve_permission(&mut self, permission_id: &str) {
        if self.take_pending(permission_id) {
            self.emit(ProviderEvent::SessionPermissionResolved {
                session_id: self.session_id.clone(),
                permission_id: permission_id.to_string(),
            })
            .await;
        }
    }

    pub(super) async fn emit_item(&mut self, mut item: TimelineItem) {
        if !crate::timeline::has_id(&item) {
            return;
        }
        if self.store.is_sealed(&item.id) {
            // Its turn ended: the host took that as final (an agent reloaded after a crash may
            // report again a tool call the crash cut off).
            tracing::debug!(session = %self.session_id, item = %item.id, "a row of an ended turn was not updated");
            return;
        }
        if self.turn.is_some() {
            self.store.note_turn_row(&item.id);
        }
        strip_carried_context(&mut item);
        item.normalize();
        self.log.record(&item);
        if self.store.upsert(&item) {
            self.emit(ProviderEvent::TimelineItem {
                session_id: self.session_id.clone(),
                item,
                timestamp: None,
            })
            .await;
        }
    }

    pub(super) async fn handle_agent_event(&mut self, ev: AgentEvent) {
        let sid = self.session_id.clone();
        match ev {
            AgentEvent::Item(item) => self.emit_item(item).await,
            AgentEvent::ChildItem {
                child_session_id,
                item,
            } => {
                if !self.children.contains(&child_session_id) {
                    let cwd = self.cwd.clone();
                    let child = ChildSession {
                        session_id: child_session_id.clone(),
                        title: None,
                        description: None,
                        cwd,
                        items: vec![],
                    };
                    self.open_child(child).await;
                }
                self.emit_child_item(&child_session_id, item).await;
            }
            AgentEvent::ChildOpened(child) => self.open_child(child).await,
            AgentEvent::ChildClosed { child_session_id } => {
                self.close_child(child_session_id).await
            }
            AgentEvent::TurnEnded { turn_id, outcome } => {
                self.end_turn(Some(&turn_id), outcome).await
            }
            AgentEvent::Usage { turn_id, usage } => {
                let turn_id = turn_id.or_else(|| self.turn.as_ref().map(|t| t.id.clone()));
                self.emit(ProviderEvent::SessionUsage {
                    session_id: sid,
                    turn_id,
                    usage,
                })
                .await;
            }
            AgentEvent::Config(config) => {
                self.emit(ProviderEvent::SessionConfig {
                    session_id: sid,
                    config,
                })
                .await
            }
            AgentEvent::Commands(commands) => {
                self.emit(ProviderEvent::SessionCommands {
                    session_id: sid,
                    commands,
                })
                .await
            }
            AgentEvent::Permission(request) if !self.host_answers_permissions => {
                // Nobody could answer it and the turn would wait forever: denied instead.
                tracing::warn!(session = %sid, permission = %request.id, "the host did not negotiate `permission`; denying the agent's request");
                if !self.unanswerable.contains(&request.id) {
                    self.unanswerable.push(request.id);
                }
            }
            AgentEvent::Permission(request) => {
                // Bound to the turn it is raised in (or the command turn about to start).
                let turn = self
                    .turn
                    .as_ref()
                    .map(|t| t.id.clone())
                    .or_else(|| self.pending_command_turn.clone());
                let fresh = self
                    .shared
                    .lock()
                    .map(
                        |mut s| match s.pending_permissions.entry(request.id.clone()) {
                            std::collections::hash_map::Entry::Occupied(_) => false,
                            std::collections::hash_map::Entry::Vacant(slot) => {
                                slot.insert(turn);
                                true
                            }
                        },
                    )
                    .unwrap_or(false);
                if fresh {
                    self.emit(ProviderEvent::SessionPermission {
                        session_id: sid,
                        request,
                    })
                    .await;
                }
            }
            AgentEvent::PermissionResolved { permission_id } => {
                self.resolve_permission(&permission_id).await
            }
            AgentEvent::Notice(notice) => {
                self.emit(ProviderEvent::SessionNotice {
                    session_id: sid,
                    notice,
                })
                .await
            }
            AgentEvent::Persistence(persistence) => {
                self.emit(ProviderEvent::SessionPersistence {
                    session_id: sid,
                    persistence,
                })
                .await
            }
            AgentEvent::RuntimeFailed(error) => self.note_failure(error),
        }
    }
}

/// A user message that starts with context the bridge carried into a new conversation (a
/// replay of that conversation) shows what the user wrote.
pub(crate) fn strip_carried_context(item: &mut TimelineItem) {
    if let ItemBody::UserMessage { text, .. } = &mut item.body {
        let stripped = crate::carry_over::strip(text);
        if stripped.len() != text.len() {
            *text = stripped.to_string();
        }
    }
}
