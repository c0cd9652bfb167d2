//! The client's requests and notifications.

use super::{code, error, Facade, Fallback, OpenKind, PendingPrompt, Refusal, Session, Wait};
use crate::session_ids::{self, Choice};
use crate::transport::ClientMessage;
use crate::{capabilities, config, mcp, permission, prompt};
use agent_bridge_protocol::jsonrpc::{RequestId, RpcError};
use agent_bridge_protocol::{
    AvailabilityStatus, HistoryMode, PromptDelivery, ProviderInput, ProviderPersistence,
    ProviderPrompt, ProviderSessionConfig,
};
use agent_client_protocol_schema::v1::{
    AuthMethod, AuthMethodAgent, ClientNotification, ClientRequest, Implementation,
    InitializeResponse, McpServer, RequestPermissionResponse, SessionUpdate, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol_schema::{MethodDispatchError, ProtocolVersion};
use serde_json::{json, Value};
use std::time::Duration;

/// How long `initialize` waits for the provider's availability check.
const AVAILABILITY_TIMEOUT: Duration = Duration::from_secs(15);

type Answer = Result<Value, RpcError>;

impl Facade {
    /// Handles one message of the client.
    pub async fn client(&mut self, message: ClientMessage) {
        match message {
            ClientMessage::Blank => {}
            ClientMessage::Refused(id, e) => self.out.error(id, e).await,
            ClientMessage::Response { id, result } => {
                self.permission_answer(id, result);
                for (session, update) in std::mem::take(&mut self.pending_updates) {
                    self.update(&session, update).await;
                }
            }
            ClientMessage::Notification { method, params } => {
                match ClientNotification::from_method_and_params(&method, &params) {
                    Ok(ClientNotification::CancelNotification(n)) => {
                        self.cancel(&n.session_id.0).await
                    }
                    Ok(_) => tracing::debug!(%method, "ignoring an extension notification"),
                    Err(e) => tracing::debug!("ignoring notification `{method}`: {e}"),
                }
            }
            ClientMessage::Request { id, method, params } => {
                let request = match ClientRequest::from_method_and_params(&method, &params) {
                    Ok(ClientRequest::ExtMethodRequest(_)) => {
                        let e = error(code::METHOD_NOT_FOUND, format!("unknown method `{method}`"));
                        return self.out.error(Some(id), e).await;
                    }
                    Ok(r) => r,
                    Err(MethodDispatchError::UnknownMethod { .. }) => {
                        let e = error(code::METHOD_NOT_FOUND, format!("unknown method `{method}`"));
                        return self.out.error(Some(id), e).await;
                    }
                    Err(e) => {
                        return self
                            .out
                            .error(Some(id), error(code::INVALID_PARAMS, e.to_string()))
                            .await
                    }
                };
                self.request(id, request).await
            }
        }
    }

    async fn request(&mut self, id: RequestId, request: ClientRequest) {
        if !matches!(request, ClientRequest::InitializeRequest(_)) && self.connection.is_none() {
            let e = error(code::INTERNAL, "not initialized: send `initialize` first");
            return self.out.error(Some(id), e).await;
        }
        let answer: Answer = match request {
            ClientRequest::InitializeRequest(_) => self.initialize().await,
            ClientRequest::AuthenticateRequest(_) => self.authenticate().await,
            ClientRequest::NewSessionRequest(r) => {
                let cwd = r.cwd.display().to_string();
                return self
                    .open(id, None, cwd, &r.mcp_servers, None, OpenKind::New)
                    .await;
            }
            ClientRequest::LoadSessionRequest(r) => {
                let cwd = r.cwd.display().to_string();
                return self
                    .reopen(id, &r.session_id.0, cwd, &r.mcp_servers, OpenKind::Load)
                    .await;
            }
            ClientRequest::ResumeSessionRequest(r) => {
                let cwd = r.cwd.display().to_string();
                return self
                    .reopen(id, &r.session_id.0, cwd, &r.mcp_servers, OpenKind::Resume)
                    .await;
            }
            ClientRequest::ListSessionsRequest(r) => {
                let request_id = self.request_id("list");
                self.waits.insert(request_id.clone(), Wait::Sessions { id });
                let input = ProviderInput::Sessions {
                    request_id: request_id.clone(),
                    query: None,
                    cwd: r.cwd.map(|c| c.display().to_string()),
                    limit: None,
                    provider_options: None,
                    settings: None,
                };
                return self.send(input, Refusal::Waiting { request_id });
            }
            ClientRequest::CloseSessionRequest(r) => {
                let Some(core_id) = self.core_id(&r.session_id.0) else {
                    return self.unknown_session(id, &r.session_id.0).await;
                };
                let request_id = self.request_id("close");
                self.waits.insert(
                    request_id.clone(),
                    Wait::Close {
                        id,
                        session: r.session_id.0.to_string(),
                    },
                );
                let input = ProviderInput::SessionClose {
                    request_id: request_id.clone(),
                    session_id: core_id,
                };
                return self.send(input, Refusal::Waiting { request_id });
            }
            ClientRequest::SetSessionModeRequest(r) => {
                let changes = config::mode_change(&r.mode_id.0);
                return self.configure(id, &r.session_id.0, changes, false).await;
            }
            ClientRequest::SetSessionConfigOptionRequest(r) => {
                let current = self
                    .sessions
                    .get(&*r.session_id.0)
                    .and_then(|s| s.config.as_ref());
                match config::change(current, &r.config_id.0, &r.value) {
                    Ok(changes) => return self.configure(id, &r.session_id.0, changes, true).await,
                    Err(e) => Err(error(code::INVALID_PARAMS, e.to_string())),
                }
            }
            ClientRequest::PromptRequest(r) => {
                return self.prompt(id, &r.session_id.0, &r.prompt).await
            }
            other => Err(error(
                code::METHOD_NOT_FOUND,
                format!("`{}` is not served by agent-bridge", other.method()),
            )),
        };
        self.respond(id, answer).await
    }

    async fn unknown_session(&self, id: RequestId, session: &str) {
        let e = error(code::INVALID_PARAMS, format!("unknown session `{session}`"));
        self.out.error(Some(id), e).await
    }

    fn core_id(&self, acp_id: &str) -> Option<String> {
        self.sessions.get(acp_id).map(|s| s.core_id.clone())
    }

    async fn initialize(&mut self) -> Answer {
        let availability = self
            .core
            .availability(&self.provider.id, AVAILABILITY_TIMEOUT)
            .await
            .map_err(|e| error(code::INTERNAL, e.to_string()))?;
        if self.connection.is_none() {
            let caps: Vec<String> = self
                .provider
                .capabilities
                .iter()
                .filter_map(|c| serde_json::to_value(c).ok()?.as_str().map(str::to_string))
                .collect();
            let connected = self
                .core
                .connect(&self.provider.id, &caps)
                .await
                .map_err(|e| error(code::INTERNAL, e.to_string()))?;
            self.connection = Some(connected.connection_id);
        }
        self.availability = Some(availability);
        let info = Implementation::new(
            format!("agent-bridge/{}", self.provider.id),
            env!("CARGO_PKG_VERSION"),
        )
        .title(format!("{} (agent-bridge)", self.provider.label));
        let response = InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(capabilities::agent_capabilities(
                &self.provider,
                &self.agent,
            ))
            .auth_methods(self.auth_methods())
            .agent_info(info);
        serde_json::to_value(response).map_err(|e| error(code::INTERNAL, e.to_string()))
    }

    /// The login method, when the CLI is missing or not logged in: its description is what
    /// the availability check said to do (it names the login command).
    fn auth_methods(&self) -> Vec<AuthMethod> {
        match self.unavailable() {
            Some(why) => vec![AuthMethod::Agent(
                AuthMethodAgent::new("cli-login", format!("Log in to {}", self.provider.label))
                    .description(why),
            )],
            None => vec![],
        }
    }

    /// Why the provider cannot open sessions, if it cannot.
    fn unavailable(&self) -> Option<String> {
        let a = self.availability.as_ref()?;
        (a.status != AvailabilityStatus::Available).then(|| {
            a.diagnostic.clone().unwrap_or_else(|| {
                format!("{} is not available ({:?})", self.provider.label, a.status)
            })
        })
    }

    /// `authenticate`: checks again; the user logs in with the command the method names.
    async fn authenticate(&mut self) -> Answer {
        let a = self
            .core
            .availability(&self.provider.id, AVAILABILITY_TIMEOUT)
            .await
            .map_err(|e| error(code::INTERNAL, e.to_string()))?;
        self.availability = Some(a);
        match self.unavailable() {
            Some(why) => Err(error(code::AUTH_REQUIRED, why)),
            None => Ok(json!({})),
        }
    }

    pub(super) async fn reopen(
        &mut self,
        id: RequestId,
        acp_id: &str,
        cwd: String,
        mcp: &[McpServer],
        kind: OpenKind,
    ) {
        if let Some(live) = self.sessions.get(acp_id) {
            // A session open here is closed first, then reopened as asked (its replay comes
            // from what the provider persisted); not while it runs a turn or still opens.
            if !live.prompts.is_empty() || live.opening.is_some() {
                let e = error(
                    code::INVALID_PARAMS,
                    format!("session `{acp_id}` is busy: wait for its turn to end or cancel it"),
                );
                return self.out.error(Some(id), e).await;
            }
            let core_id = live.core_id.clone();
            let request_id = self.request_id("close");
            let reopen = super::Reopen {
                id,
                cwd,
                mcp: mcp.to_vec(),
                kind,
            };
            self.waits.insert(
                request_id.clone(),
                Wait::Reopen {
                    session: acp_id.to_string(),
                    reopen,
                },
            );
            let input = ProviderInput::SessionClose {
                request_id: request_id.clone(),
                session_id: core_id,
            };
            return self.send(input, Refusal::Waiting { request_id });
        }
        match session_ids::lookup(&self.data_dir, acp_id).await {
            // The session comes back in the mode it was last in (ACP's load and resume carry
            // none).
            Some(r) => {
                self.open(id, Some(acp_id.to_string()), cwd, mcp, Some(r), kind)
                    .await
            }
            None => {
                let e = error(
                    code::INVALID_PARAMS,
                    format!(
                        "unknown session `{acp_id}`: it was not listed or created by this agent"
                    ),
                );
                self.out.error(Some(id), e).await
            }
        }
    }

    async fn open(
        &mut self,
        id: RequestId,
        acp_id: Option<String>,
        cwd: String,
        mcp: &[McpServer],
        reopened: Option<session_ids::Remembered>,
        kind: OpenKind,
    ) {
        if let Some(why) = self.unavailable() {
            return self
                .out
                .error(Some(id), error(code::AUTH_REQUIRED, why))
                .await;
        }
        let acp_id = acp_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let (persistence, choice) = match reopened {
            Some(r) => (Some(r.persistence), r.choice),
            None => (None, Choice::default()),
        };
        let defaults = ProviderSessionConfig {
            cwd,
            mcp_servers: mcp::servers(mcp),
            persist: true,
            ..Default::default()
        };
        let history = if kind == OpenKind::Load {
            HistoryMode::Replay
        } else {
            HistoryMode::Skip
        };
        self.sessions.insert(
            acp_id.clone(),
            Session {
                core_id: String::new(),
                stream: Default::default(),
                config: None,
                commands: vec![],
                prompts: vec![],
                cancel_requested: false,
                opening: Some((id, kind)),
                held: vec![],
            },
        );
        if choice.is_empty() {
            return self.send_open(&acp_id, defaults, persistence, history, None);
        }
        let config = ProviderSessionConfig {
            mode: choice.mode.clone(),
            model: choice.model.clone(),
            thinking_option: choice.thinking.clone(),
            ..defaults.clone()
        };
        let fallback = Fallback {
            config: defaults,
            persistence: persistence.clone(),
            history,
            refused: choice,
        };
        self.send_open(&acp_id, config, persistence, history, Some(fallback));
    }

    /// Opens the core session behind `acp_id` (a new core id each time: a retried open does
    /// not reuse the refused one).
    pub(super) fn send_open(
        &mut self,
        acp_id: &str,
        config: ProviderSessionConfig,
        persistence: Option<ProviderPersistence>,
        history: HistoryMode,
        fallback: Option<Fallback>,
    ) {
        let core_id = uuid::Uuid::new_v4().to_string();
        if let Some(s) = self.sessions.get_mut(acp_id) {
            self.acp_ids.remove(&s.core_id);
            s.core_id = core_id.clone();
        }
        self.acp_ids.insert(core_id.clone(), acp_id.to_string());
        let request_id = self.request_id("open");
        self.waits.insert(
            request_id.clone(),
            Wait::Open {
                session: acp_id.to_string(),
                fallback: fallback.map(Box::new),
            },
        );
        let refusal = Refusal::Waiting {
            request_id: request_id.clone(),
        };
        let input = ProviderInput::SessionOpen {
            request_id,
            session_id: core_id,
            config,
            persistence,
            history,
        };
        self.send(input, refusal);
    }

    async fn configure(
        &mut self,
        id: RequestId,
        acp_id: &str,
        changes: agent_bridge_protocol::ProviderConfigChanges,
        options: bool,
    ) {
        let Some(core_id) = self.core_id(acp_id) else {
            return self.unknown_session(id, acp_id).await;
        };
        let request_id = self.request_id("configure");
        self.waits.insert(
            request_id.clone(),
            Wait::Configure {
                id,
                session: acp_id.to_string(),
                options,
            },
        );
        let input = ProviderInput::SessionConfigure {
            request_id: request_id.clone(),
            session_id: core_id,
            changes,
        };
        self.send(input, Refusal::Waiting { request_id });
    }

    async fn prompt(
        &mut self,
        id: RequestId,
        acp_id: &str,
        blocks: &[agent_client_protocol_schema::v1::ContentBlock],
    ) {
        let images = self
            .provider
            .capabilities
            .contains(&agent_bridge_protocol::Capability::PromptImage);
        let Some(session) = self.sessions.get_mut(acp_id) else {
            return self.unknown_session(id, acp_id).await;
        };
        let input = match prompt::input(blocks, &session.commands, images) {
            Ok(input) => input,
            Err(e) => {
                return self
                    .out
                    .error(Some(id), error(code::INVALID_PARAMS, e.to_string()))
                    .await
            }
        };
        let client_message_id = uuid::Uuid::new_v4().to_string();
        if session.prompts.is_empty() {
            session.cancel_requested = false;
        }
        session.prompts.push(PendingPrompt {
            id,
            client_message_id: client_message_id.clone(),
            turn_id: None,
        });
        let input = ProviderInput::SessionPrompt {
            session_id: session.core_id.clone(),
            prompt: ProviderPrompt {
                client_message_id: client_message_id.clone(),
                delivery: PromptDelivery::Auto,
                input,
                output_schema: None,
                clear_pending_permissions: None,
            },
        };
        let refusal = Refusal::Prompt {
            session: acp_id.to_string(),
            client_message_id,
        };
        self.send(input, refusal);
    }

    async fn cancel(&mut self, acp_id: &str) {
        let Some(session) = self.sessions.get_mut(acp_id) else {
            return tracing::debug!("cancel of unknown session {acp_id}");
        };
        if session.prompts.is_empty() {
            return;
        }
        session.cancel_requested = true;
        let core_id = session.core_id.clone();
        let request_id = self.request_id("interrupt");
        self.waits.insert(request_id.clone(), Wait::Interrupt);
        let input = ProviderInput::SessionInterrupt {
            request_id: request_id.clone(),
            session_id: core_id,
        };
        self.send(input, Refusal::Waiting { request_id });
    }

    /// The client's answer to a `session/request_permission`.
    fn permission_answer(&mut self, id: RequestId, result: Result<Value, RpcError>) {
        let Some(asked) = self.asked.remove(&id.to_string()) else {
            return tracing::debug!(%id, "an answer to no request of ours");
        };
        let Some(core_id) = self.core_id(&asked.session_id) else {
            return;
        };
        let outcome = result
            .ok()
            .and_then(|v| serde_json::from_value::<RequestPermissionResponse>(v).ok())
            .map(|r| r.outcome);
        let response = match &outcome {
            Some(o) => permission::response(&asked.request, o),
            None => agent_bridge_protocol::ProviderPermissionResponse::deny(
                "the ACP client's answer to the permission could not be read",
            ),
        };
        // A permission shown on a tool call of its own ends it with the answer (a client shows
        // it until then); one shown on the call it guards leaves that call to its snapshots.
        if permission::guarded_call(&asked.request).is_none() {
            let status = if response.is_allow() {
                ToolCallStatus::Completed
            } else {
                ToolCallStatus::Failed
            };
            let fields = ToolCallUpdateFields::new().status(status);
            let update = ToolCallUpdate::new(asked.request.id.clone(), fields);
            self.pending_updates.push((
                asked.session_id.clone(),
                SessionUpdate::ToolCallUpdate(update),
            ));
        }
        let input = ProviderInput::SessionPermission {
            session_id: core_id,
            permission_id: asked.request.id.clone(),
            response,
        };
        self.send(input, Refusal::Permission);
    }
}
