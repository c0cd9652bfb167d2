//! Prompts and the turn lifecycle: one prompt result per prompt, one end per turn.

use super::*;
use agent_bridge_protocol::ErrorCode;

impl Actor {
    pub(super) async fn prompt_result(&mut self, client_message_id: String, result: PromptResult) {
        self.emit(ProviderEvent::SessionPromptResult {
            session_id: self.session_id.clone(),
            client_message_id,
            result,
        })
        .await;
    }

    pub(super) async fn user_message(&mut self, id: String, text: String, client_message_id: &str) {
        self.user_message_with(id, text, client_message_id, None, None)
            .await
    }

    /// A `user_message` row with the agent's message id and revert token.
    async fn user_message_with(
        &mut self,
        id: String,
        text: String,
        client_message_id: &str,
        message_id: Option<String>,
        revert_token: Option<serde_json::Value>,
    ) {
        let mut item = TimelineItem::new(
            id,
            ItemBody::UserMessage {
                text,
                message_id,
                client_message_id: Some(client_message_id.to_string()),
            },
        );
        item.revert_token = revert_token;
        self.emit_item(item).await;
    }

    pub(super) async fn prompt(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        prompt: ProviderPrompt,
    ) {
        let cmid = prompt.client_message_id.clone();
        if prompt.clear_pending_permissions == Some(true) {
            for id in self.pending_permissions() {
                let deny = ProviderPermissionResponse::deny("Cleared by a new prompt");
                if let Err(e) = self.call(session.respond_permission(&id, deny)).await {
                    tracing::warn!("could not deny pending permission {id}: {e}");
                }
                self.resolve_permission(&id).await;
            }
        }
        if let Some(error) = self.failure.as_ref() {
            let error = recovery::not_running(error);
            return self
                .prompt_result(cmid, PromptResult::Failed { error })
                .await;
        }
        if let Err(error) = self.ensure_running(session).await {
            return self
                .prompt_result(cmid, PromptResult::Failed { error })
                .await;
        }
        let text = prompt.input.to_text();
        if let Some(active) = self.turn.as_ref().map(|t| t.id.clone()) {
            if prompt.delivery != PromptDelivery::Steer {
                let error = ProviderError::new(format!(
                    "a turn is already running ({active}); interrupt it or send the prompt with delivery \"steer\""
                ))
                .with_code(ErrorCode::TurnActive);
                return self
                    .prompt_result(cmid, PromptResult::Failed { error })
                    .await;
            }
            let req = TurnRequest {
                turn_id: active.clone(),
                prompt,
                text: text.clone(),
            };
            return match self.call(session.steer(&active, req)).await {
                Ok(()) => {
                    let id = format!("user:{active}:{}", uuid::Uuid::new_v4().simple());
                    self.user_message(id, text, &cmid).await;
                    self.prompt_result(cmid, PromptResult::Steer { turn_id: active })
                        .await;
                }
                Err(error) => {
                    self.prompt_result(cmid, PromptResult::Failed { error })
                        .await
                }
            };
        }
        // No active turn: any delivery starts one. A steer that lost the race with the end of
        // its turn is a new prompt (result `turn`), not an error.
        let turn_id = uuid::Uuid::new_v4().to_string();
        let req = TurnRequest {
            turn_id: turn_id.clone(),
            prompt: self.with_carried_context(&prompt),
            text: text.clone(),
        };
        match &prompt.input {
            PromptInput::Command { name, arguments } => {
                self.pending_command_turn = Some(turn_id.clone());
                let mut outcome = self
                    .call(session.run_command(name, arguments, req.clone()))
                    .await;
                if let Err(error) = &outcome {
                    if self.restart_after_a_raced_death(session, error).await {
                        outcome = self.call(session.run_command(name, arguments, req)).await;
                    }
                }
                self.pending_command_turn = None;
                let early_end = self.early_end.take();
                let tag = match &outcome {
                    Ok(CommandOutcome::TurnWithRevert {
                        message_id,
                        revert_token,
                    }) => Some((message_id.clone(), revert_token.clone())),
                    _ => None,
                };
                match outcome {
                    Ok(CommandOutcome::Turn | CommandOutcome::TurnWithRevert { .. }) => {
                        let (message_id, revert_token) = tag.unzip();
                        self.user_message_with(
                            crate::user_item_id(&turn_id),
                            text,
                            &cmid,
                            message_id.flatten(),
                            revert_token,
                        )
                        .await;
                        self.start_turn_events(cmid, turn_id.clone()).await;
                        if let Some(end) = early_end {
                            self.end_turn(Some(&turn_id), end).await;
                        }
                    }
                    Ok(CommandOutcome::Completed) => {
                        self.prompt_result(cmid, PromptResult::Completed).await
                    }
                    Err(error) => {
                        self.prompt_result(cmid, PromptResult::Failed { error })
                            .await
                    }
                }
            }
            PromptInput::Message { .. } => {
                self.user_message(crate::user_item_id(&turn_id), text, &cmid)
                    .await;
                self.start_turn_events(cmid, turn_id.clone()).await;
                let mut started = self.call(session.start_turn(req.clone())).await;
                if let Err(error) = &started {
                    // The runtime died before its death was reported: restart, then try again.
                    if self.restart_after_a_raced_death(session, error).await {
                        // A restart in a new conversation has context for this prompt now.
                        let req = TurnRequest {
                            prompt: self.with_carried_context(&prompt),
                            ..req
                        };
                        started = self.call(session.start_turn(req)).await;
                    }
                }
                match started {
                    // The new conversation has its context now.
                    Ok(()) => self.carry_over = None,
                    Err(error) => {
                        self.abandon_and_end(session, Some(&turn_id), TurnOutcome::Failed(error))
                            .await
                    }
                }
            }
        }
    }

    /// `prompt` as the agent gets it: after a restart in a new conversation, a message prompt
    /// starts with the conversation the session still holds (see [`crate::carry_over`]); the
    /// timeline shows the prompt as the user wrote it.
    fn with_carried_context(&self, prompt: &ProviderPrompt) -> ProviderPrompt {
        let mut prompt = prompt.clone();
        if let (Some(context), PromptInput::Message { content }) =
            (self.carry_over.as_ref(), &mut prompt.input)
        {
            content.insert(
                0,
                agent_bridge_protocol::ProviderContent::text(context.clone()),
            );
        }
        prompt
    }

    pub(super) async fn start_turn_events(&mut self, cmid: String, turn_id: String) {
        self.turn = Some(ActiveTurn {
            id: turn_id.clone(),
            interrupt_deadline: None,
        });
        self.prompt_result(
            cmid,
            PromptResult::Turn {
                turn_id: turn_id.clone(),
            },
        )
        .await;
        self.emit(ProviderEvent::SessionTurn {
            session_id: self.session_id.clone(),
            turn_id,
            state: TurnState::Started,
            error: None,
        })
        .await;
    }

    pub(super) async fn interrupt(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        request_id: String,
    ) {
        let Some(turn_id) = self.turn.as_ref().map(|t| t.id.clone()) else {
            return self
                .emit(ProviderEvent::RequestCompleted { request_id })
                .await;
        };
        let result = self.call(session.interrupt(&turn_id)).await;
        if let Some(turn) = self.turn.as_mut().filter(|t| t.id == turn_id) {
            turn.interrupt_deadline
                .get_or_insert(Instant::now() + INTERRUPT_GRACE);
        }
        match result {
            Ok(()) => {
                self.emit(ProviderEvent::RequestCompleted { request_id })
                    .await
            }
            Err(error) => {
                self.emit(ProviderEvent::RequestFailed { request_id, error })
                    .await
            }
        }
    }

    /// Ends the active turn. `turn_id: None` ends whatever turn is active; an id that is not
    /// the active turn is stale and ignored.
    pub(super) async fn end_turn(&mut self, turn_id: Option<&str>, outcome: TurnOutcome) {
        if self.turn.is_none()
            && turn_id.is_some()
            && turn_id == self.pending_command_turn.as_deref()
        {
            // The command's turn ended before the core announced it; end it right after.
            self.early_end = Some(outcome);
            return;
        }
        let Some(active) = self.turn.as_ref() else {
            tracing::debug!(session = %self.session_id, "turn end with no active turn ignored");
            return;
        };
        if turn_id.is_some_and(|id| id != active.id) {
            tracing::debug!(session = %self.session_id, "stale turn end ignored");
            return;
        }
        let turn_id = active.id.clone();
        if outcome == TurnOutcome::Completed {
            self.recovery.progressed();
        }
        let (state, error, tool_status) = match outcome {
            TurnOutcome::Completed => (TurnState::Completed, None, None),
            TurnOutcome::Failed(e) => (TurnState::Failed, Some(e), Some(ToolStatus::Failed)),
            TurnOutcome::Canceled => (TurnState::Canceled, None, Some(ToolStatus::Canceled)),
        };
        if let Some(status) = tool_status {
            let reason = error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_else(|| "turn canceled".into());
            for item in self.store.settle_running_tools(status, &reason) {
                self.emit(ProviderEvent::TimelineItem {
                    session_id: self.session_id.clone(),
                    item,
                    timestamp: None,
                })
                .await;
            }
            self.settle_children(status, &reason).await;
        }
        self.children.prune_settled();
        for id in self.pending_for(&turn_id) {
            self.resolve_permission(&id).await;
        }
        self.store.prune_settled();
        self.store.seal_turn();
        self.turn = None;
        self.emit(ProviderEvent::SessionTurn {
            session_id: self.session_id.clone(),
            turn_id,
            state,
            error,
        })
        .await;
    }

    /// The runtime died: the active turn is abandoned and fails, every pending permission is
    /// resolved; then the session waits for a restart (see `recovery`) or, when it cannot
    /// restart, ends: later prompts fail.
    pub(super) async fn runtime_failed(
        &mut self,
        session: &mut Box<dyn AgentSession>,
        error: ProviderError,
    ) {
        if self.dead.is_some() || self.recovery.down.is_some() {
            return;
        }
        self.abandon_and_end(session, None, TurnOutcome::Failed(error.clone()))
            .await;
        for id in self.pending_permissions() {
            self.resolve_permission(&id).await;
        }
        if let Err(error) = self.keep_for_restart(session.as_ref(), error) {
            self.give_up(error).await;
        }
    }
}
