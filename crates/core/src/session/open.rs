//! Opening a session: `Provider::open` runs while the actor drains the agent's sink into the
//! spool and watches the session's cancellation; then the opened session is published:
//! opened, config, commands, what the agent streamed meanwhile, replay, children, ready.

use super::*;

/// How many events already queued when the open returns are still published before ready.
const OPEN_TAIL: usize = 16 * SESSION_QUEUE;

/// How an open ended.
pub(super) enum OpenEnd {
    Opened(Box<OpenedSession>),
    Failed(ProviderError),
    /// A close of the session (or its connection) was admitted; the open was dropped.
    Canceled,
}

impl Actor {
    /// Runs the provider's open within [`OPEN_TIMEOUT`], draining the sink meanwhile (so an
    /// agent that streams a long history never stalls on the bounded queue) and dropping the
    /// open as soon as a close is admitted.
    pub(super) async fn open(
        &mut self,
        fut: impl std::future::Future<Output = Result<OpenedSession, ProviderError>>,
    ) -> OpenEnd {
        if self.cancel.is_cancelled() {
            return OpenEnd::Canceled;
        }
        self.spool = Some(spool::Spool::new(self.connection_id.clone()));
        let cancel = self.cancel.clone();
        let fut = bounded(OPEN_TIMEOUT, "opening the session", fut);
        tokio::pin!(fut);
        let mut rx = self.events.take();
        let end = loop {
            tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    // What the open started is counted before dropping it kills it.
                    self.scope.census().await;
                    break OpenEnd::Canceled;
                }
                r = &mut fut => break match r {
                    Ok(opened) => OpenEnd::Opened(Box::new(opened)),
                    Err(error) => OpenEnd::Failed(error),
                },
                ev = next_event(&mut rx) => match ev {
                    Some(ev) => self.handle_open_event(ev).await,
                    None => {
                        rx = None;
                        self.events_ended();
                    }
                },
            }
        };
        if rx.is_some() {
            self.events = rx;
        }
        if matches!(end, OpenEnd::Opened(_)) {
            // What the agent sent before its open answered belongs before ready too.
            for _ in 0..OPEN_TAIL {
                let Some(rx) = self.events.as_mut() else {
                    break;
                };
                match rx.try_recv() {
                    Ok(ev) => self.handle_open_event(ev).await,
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => {
                        self.events_ended();
                        break;
                    }
                }
            }
        }
        end
    }

    /// An event sent while opening. Config and commands are not spooled: the opened session's
    /// committed config supersedes any sent before, and only the newest command list matters.
    async fn handle_open_event(&mut self, ev: AgentEvent) {
        match ev {
            AgentEvent::Config(_) => {
                tracing::debug!(session = %self.session_id, "config sent while opening superseded by the opened config");
            }
            AgentEvent::Commands(commands) => {
                if let Some(spool) = self.spool.as_mut() {
                    spool.commands = Some(commands);
                }
            }
            other => self.handle_agent_event(other).await,
        }
    }

    pub(super) async fn publish_open(
        &mut self,
        opened: OpenedSession,
        request_id: &str,
        connection_caps: &[Capability],
    ) -> Box<dyn AgentSession> {
        let OpenedSession {
            session,
            config,
            persistence,
            title,
            description,
            replay,
            children,
            commands,
            capabilities,
        } = opened;
        // From here on events go out directly; what was spooled follows the config.
        let spool = self.spool.take();
        let caps: Vec<Capability> = match capabilities {
            Some(own) => connection_caps
                .iter()
                .copied()
                .filter(|c| own.contains(c))
                .collect(),
            None => connection_caps.to_vec(),
        };
        self.emit(ProviderEvent::SessionOpened {
            request_id: Some(request_id.to_string()),
            session_id: self.session_id.clone(),
            parent_session_id: None,
            capabilities: caps,
            restoration: Restoration::Core,
            persistence,
            title,
            description,
            cwd: self.cwd.clone(),
        })
        .await;
        self.emit(ProviderEvent::SessionConfig {
            session_id: self.session_id.clone(),
            config,
        })
        .await;
        let streamed_commands = spool.as_ref().and_then(|s| s.commands.clone());
        let commands = match streamed_commands {
            Some(streamed) if commands.is_empty() => streamed,
            _ => commands,
        };
        if !commands.is_empty() {
            self.emit(ProviderEvent::SessionCommands {
                session_id: self.session_id.clone(),
                commands,
            })
            .await;
        }
        if let Some(spool) = spool {
            spool.replay(&self.out).await;
        }
        for mut item in replay.into_iter().filter(crate::timeline::has_id) {
            agent_events::strip_carried_context(&mut item);
            item.normalize();
            self.log.record(&item);
            self.emit(ProviderEvent::TimelineItem {
                session_id: self.session_id.clone(),
                item,
                timestamp: None,
            })
            .await;
        }
        for child in children {
            self.open_child(child).await;
        }
        self.emit(ProviderEvent::SessionReady {
            request_id: Some(request_id.to_string()),
            session_id: self.session_id.clone(),
        })
        .await;
        session
    }
}
