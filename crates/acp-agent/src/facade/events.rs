//! The core's events as ACP: `session/update`s, answers to the waiting requests, and
//! `session/request_permission` calls to the client.

use super::{code, error, Facade, OpenKind, Reopen, Wait};
use crate::session_ids::{self, Choice};
use crate::{config, permission};
use agent_bridge_protocol::jsonrpc::{RequestId, RpcError};
use agent_bridge_protocol::{
    PromptResult, ProviderConfigState, ProviderError, ProviderEvent, ProviderPermissionRequest,
    ProviderUsage, TurnState,
};
use agent_client_protocol_schema::v1::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, ConfigOptionUpdate, Cost,
    CurrentModeUpdate, ListSessionsResponse, LoadSessionResponse, NewSessionResponse,
    PromptResponse, RequestPermissionRequest, ResumeSessionResponse, SessionInfo, SessionUpdate,
    SetSessionConfigOptionResponse, StopReason, UnstructuredCommandInput, UsageUpdate,
};
use serde_json::{json, Value};

impl Facade {
    /// Handles one core event.
    pub async fn event(&mut self, event: ProviderEvent) {
        match event {
            ProviderEvent::Sessions {
                request_id,
                sessions,
            } => {
                if let Some(Wait::Sessions { id }) = self.waits.remove(&request_id) {
                    // A session created here is listed under the id it was created with.
                    let here = session_ids::created_here(&self.data_dir).await;
                    let infos = sessions
                        .iter()
                        .map(|s| {
                            let id = session_ids::native_id(&s.persistence)
                                .and_then(|n| here.get(n).cloned())
                                .unwrap_or_else(|| session_ids::listed_id(&s.persistence));
                            SessionInfo::new(id, s.cwd.clone())
                                .title(s.title.clone().or_else(|| s.first_prompt_preview.clone()))
                                .updated_at(s.updated_at.clone())
                        })
                        .collect();
                    self.answer(id, ListSessionsResponse::new(infos)).await;
                }
            }
            ProviderEvent::RequestCompleted { request_id } => self.completed(&request_id).await,
            ProviderEvent::RequestFailed { request_id, error } => {
                if let Some(wait) = self.waits.remove(&request_id) {
                    self.fail_wait(wait, provider_error(&error)).await;
                }
            }
            ProviderEvent::SessionReady { session_id, .. } => self.ready(&session_id).await,
            ProviderEvent::SessionClosed { session_id, error } => {
                self.closed(&session_id, error).await
            }
            ProviderEvent::SessionRuntimeFailed { session_id, error } => {
                // The session is over: its prompts fail, it closes next.
                self.fail_prompts(&session_id, None, &error).await;
            }
            ProviderEvent::SessionPersistence {
                session_id,
                persistence,
            }
            | ProviderEvent::SessionOpened {
                session_id,
                persistence: Some(persistence),
                ..
            } => {
                if let Some(acp) = self.acp_ids.get(&session_id) {
                    let choice = self
                        .sessions
                        .get(acp)
                        .and_then(|s| s.config.as_ref())
                        .map(Choice::of);
                    session_ids::remember(&self.data_dir, acp, &persistence, choice).await;
                }
            }
            ProviderEvent::SessionPromptResult {
                session_id,
                client_message_id,
                result,
            } => {
                self.prompt_result(&session_id, &client_message_id, result)
                    .await
            }
            ProviderEvent::SessionTurn {
                session_id,
                turn_id,
                state,
                error,
            } => self.turn(&session_id, &turn_id, state, error).await,
            ProviderEvent::SessionUsage {
                session_id, usage, ..
            } => {
                if let Some(update) = usage_update(&usage) {
                    self.session_update(&session_id, update).await;
                }
            }
            ProviderEvent::SessionConfig { session_id, config } => {
                self.config(&session_id, config).await
            }
            ProviderEvent::SessionCommands {
                session_id,
                commands,
            } => {
                let available = commands
                    .iter()
                    .map(|c| {
                        AvailableCommand::new(c.name.clone(), c.description.clone()).input(
                            c.argument_hint.clone().map(|h| {
                                AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(
                                    h,
                                ))
                            }),
                        )
                    })
                    .collect();
                if let Some(acp) = self.acp_ids.get(&session_id).cloned() {
                    if let Some(s) = self.sessions.get_mut(&acp) {
                        s.commands = commands;
                    }
                    let update = AvailableCommandsUpdate::new(available);
                    self.update(&acp, SessionUpdate::AvailableCommandsUpdate(update))
                        .await;
                }
            }
            ProviderEvent::SessionPermission {
                session_id,
                request,
            } => self.ask_permission(&session_id, request).await,
            ProviderEvent::TimelineItem {
                session_id, item, ..
            } => {
                let Some(acp) = self.acp_ids.get(&session_id).cloned() else {
                    return;
                };
                let Some(s) = self.sessions.get_mut(&acp) else {
                    return;
                };
                let replaying = s.opening.is_some();
                let updates = s.stream.updates(&item, replaying);
                for u in updates {
                    self.update(&acp, u).await;
                }
            }
            ProviderEvent::SessionNotice { session_id, notice } => {
                tracing::info!(session = %session_id, title = %notice.title, "agent notice")
            }
            // Nothing for the client: it cannot withdraw a permission request it was sent
            // (an answer that comes later is dropped by the core), and the rest are answers to
            // requests the facade does not make.
            ProviderEvent::SessionPermissionResolved { .. }
            | ProviderEvent::SessionOpened { .. }
            | ProviderEvent::Catalog { .. }
            | ProviderEvent::SessionCanStopRuntime { .. } => {}
        }
    }

    async fn answer(&self, id: RequestId, value: impl serde::Serialize) {
        let result = serde_json::to_value(value).map_err(|e| error(code::INTERNAL, e.to_string()));
        self.respond(id, result).await
    }

    async fn session_update(&mut self, core_id: &str, update: SessionUpdate) {
        if let Some(acp) = self.acp_ids.get(core_id).cloned() {
            self.update(&acp, update).await;
        }
    }

    async fn completed(&mut self, request_id: &str) {
        match self.waits.remove(request_id) {
            Some(Wait::Configure {
                id,
                session,
                options,
            }) => {
                if options {
                    let current = self
                        .sessions
                        .get(&session)
                        .and_then(|s| s.config.as_ref())
                        .map(config::options)
                        .unwrap_or_default();
                    self.answer(id, SetSessionConfigOptionResponse::new(current))
                        .await;
                } else {
                    self.answer(id, json!({})).await;
                }
            }
            Some(Wait::Close { id, .. }) => self.answer(id, json!({})).await,
            Some(other) => {
                // Opens answer at `session.ready`, lists with their `sessions` event.
                self.waits.insert(request_id.to_string(), other);
            }
            None => {}
        }
    }

    async fn ready(&mut self, core_id: &str) {
        let Some(acp) = self.acp_ids.get(core_id).cloned() else {
            return;
        };
        self.waits
            .retain(|_, w| !matches!(w, Wait::Open { session, .. } if *session == acp));
        let Some(s) = self.sessions.get_mut(&acp) else {
            return;
        };
        let Some((id, kind)) = s.opening.take() else {
            return;
        };
        let held = std::mem::take(&mut s.held);
        let modes = s.config.as_ref().and_then(config::modes);
        let options = s.config.as_ref().map(config::options);
        let result = match kind {
            OpenKind::New => serde_json::to_value(
                NewSessionResponse::new(acp.clone())
                    .modes(modes)
                    .config_options(options),
            ),
            OpenKind::Load => serde_json::to_value(
                LoadSessionResponse::new()
                    .modes(modes)
                    .config_options(options),
            ),
            OpenKind::Resume => serde_json::to_value(
                ResumeSessionResponse::new()
                    .modes(modes)
                    .config_options(options),
            ),
        };
        self.respond(id, result.map_err(|e| error(code::INTERNAL, e.to_string())))
            .await;
        for update in held {
            self.update(&acp, update).await;
        }
    }

    async fn closed(&mut self, core_id: &str, error_: Option<ProviderError>) {
        let Some(acp) = self.acp_ids.remove(core_id) else {
            return;
        };
        let err = error_.unwrap_or_else(|| ProviderError::new("the session was closed"));
        if let Some(s) = self.sessions.remove(&acp) {
            for p in s.prompts {
                self.out.error(Some(p.id), provider_error(&err)).await;
            }
            if let Some((id, _)) = s.opening {
                self.out.error(Some(id), provider_error(&err)).await;
            }
        }
        let done: Vec<String> = self
            .waits
            .iter()
            .filter(|(_, w)| {
                matches!(w, Wait::Close { session, .. } | Wait::Open { session, .. }
                    | Wait::Reopen { session, .. } if *session == acp)
            })
            .map(|(k, _)| k.clone())
            .collect();
        for key in done {
            match self.waits.remove(&key) {
                Some(Wait::Close { id, .. }) => self.answer(id, json!({})).await,
                Some(Wait::Reopen { session, reopen }) => {
                    let Reopen { id, cwd, mcp, kind } = reopen;
                    self.reopen(id, &session, cwd, &mcp, kind).await;
                }
                _ => {}
            }
        }
        self.asked.retain(|_, a| a.session_id != acp);
    }

    async fn prompt_result(
        &mut self,
        core_id: &str,
        client_message_id: &str,
        result: PromptResult,
    ) {
        let Some(acp) = self.acp_ids.get(core_id).cloned() else {
            return;
        };
        let Some(s) = self.sessions.get_mut(&acp) else {
            return;
        };
        let Some(i) = s
            .prompts
            .iter()
            .position(|p| p.client_message_id == client_message_id)
        else {
            return;
        };
        match result {
            PromptResult::Turn { turn_id } | PromptResult::Steer { turn_id } => {
                s.prompts[i].turn_id = Some(turn_id)
            }
            PromptResult::Completed => {
                let p = s.prompts.remove(i);
                self.answer(p.id, PromptResponse::new(StopReason::EndTurn))
                    .await;
            }
            PromptResult::Failed { error } => {
                let p = s.prompts.remove(i);
                self.out.error(Some(p.id), provider_error(&error)).await;
            }
        }
    }

    async fn turn(
        &mut self,
        core_id: &str,
        turn_id: &str,
        state: TurnState,
        error_: Option<ProviderError>,
    ) {
        let Some(acp) = self.acp_ids.get(core_id).cloned() else {
            return;
        };
        let Some(s) = self.sessions.get_mut(&acp) else {
            return;
        };
        if state == TurnState::Started {
            return;
        }
        let cancelled = s.cancel_requested || state == TurnState::Canceled;
        let (done, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut s.prompts)
            .into_iter()
            .partition(|p| p.turn_id.as_deref() == Some(turn_id));
        s.prompts = rest;
        if s.prompts.is_empty() {
            s.cancel_requested = false;
        }
        for p in done {
            if cancelled {
                self.answer(p.id, PromptResponse::new(StopReason::Cancelled))
                    .await;
            } else if state == TurnState::Completed {
                self.answer(p.id, PromptResponse::new(StopReason::EndTurn))
                    .await;
            } else {
                let err = error_
                    .clone()
                    .unwrap_or_else(|| ProviderError::new("the turn failed"));
                self.out.error(Some(p.id), provider_error(&err)).await;
            }
        }
    }

    /// Fails every prompt of the session (of `turn_id` only when given).
    async fn fail_prompts(&mut self, core_id: &str, turn_id: Option<&str>, err: &ProviderError) {
        let Some(acp) = self.acp_ids.get(core_id).cloned() else {
            return;
        };
        let Some(s) = self.sessions.get_mut(&acp) else {
            return;
        };
        let (done, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut s.prompts)
            .into_iter()
            .partition(|p| turn_id.is_none() || p.turn_id.as_deref() == turn_id);
        s.prompts = rest;
        for p in done {
            self.out.error(Some(p.id), provider_error(err)).await;
        }
    }

    async fn config(&mut self, core_id: &str, next: ProviderConfigState) {
        let Some(acp) = self.acp_ids.get(core_id).cloned() else {
            return;
        };
        let Some(s) = self.sessions.get_mut(&acp) else {
            return;
        };
        let previous = s.config.replace(next.clone());
        // The mode, model and thinking it has now are what a later load or resume asks for.
        let choice = Choice::of(&next);
        if previous.as_ref().map(Choice::of).as_ref() != Some(&choice) {
            session_ids::remember_choice(&self.data_dir, &acp, choice).await;
        }
        // The open's answer carries the first state; later changes are notifications.
        let Some(previous) = previous else {
            return;
        };
        if s.opening.is_some() {
            return;
        }
        if previous.mode != next.mode {
            if let Some(mode) = &next.mode {
                let update = SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode.clone()));
                self.update(&acp, update).await;
            }
        }
        let (before, after) = (config::options(&previous), config::options(&next));
        if before != after {
            let update = SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(after));
            self.update(&acp, update).await;
        }
    }

    async fn ask_permission(&mut self, core_id: &str, request: ProviderPermissionRequest) {
        let Some(acp) = self.acp_ids.get(core_id).cloned() else {
            return;
        };
        let params = RequestPermissionRequest::new(
            acp.clone(),
            permission::tool_call(&request),
            permission::options(&request),
        );
        let params = match serde_json::to_value(params) {
            Ok(p) => p,
            Err(e) => return tracing::error!("a permission could not be written: {e}"),
        };
        self.next_request += 1;
        let id = RequestId::String(format!("perm-{}", self.next_request));
        self.asked.insert(
            id.to_string(),
            permission::AskedPermission {
                session_id: acp,
                request,
            },
        );
        self.out
            .request(id, "session/request_permission", params)
            .await;
    }
}

fn usage_update(usage: &ProviderUsage) -> Option<SessionUpdate> {
    let (used, size) = (
        usage.context_window_used_tokens?,
        usage.context_window_max_tokens?,
    );
    let mut update = UsageUpdate::new(used, size);
    if let Some(cost) = usage.total_cost_usd {
        update = update.cost(Cost::new(cost, "USD"));
    }
    Some(SessionUpdate::UsageUpdate(update))
}

/// A core error as the JSON-RPC error of the request it ends.
pub fn provider_error(e: &ProviderError) -> RpcError {
    let mut err = error(code::INTERNAL, e.message.clone());
    let mut data = serde_json::Map::new();
    if let Some(c) = &e.code {
        if let Ok(v) = serde_json::to_value(c) {
            data.insert("code".into(), v);
        }
    }
    if let Some(d) = &e.diagnostic {
        data.insert("diagnostic".into(), Value::String(d.clone()));
    }
    if !data.is_empty() {
        err.data = Some(Value::Object(data));
    }
    err
}
