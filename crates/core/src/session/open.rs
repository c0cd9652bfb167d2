//! Publishing an opened session: opened, config, commands, replay, children, ready.

use super::*;

impl Actor {
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
        if !commands.is_empty() {
            self.emit(ProviderEvent::SessionCommands {
                session_id: self.session_id.clone(),
                commands,
            })
            .await;
        }
        for mut item in replay {
            item.normalize();
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
