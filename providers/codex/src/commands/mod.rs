//! The session's commands (`session.commands`, `prompt.command`): Codex's skills (listed by the
//! app-server, again whenever it says `skills/changed`) and the custom prompts of
//! `$CODEX_HOME/prompts` (read at open, with each skills listing and before a command runs).
//!
//! The skills are listed in the background while the session opens (the request travels next
//! to `thread/start`, the open never waits for it): the open publishes the list when the
//! answer is already there, else the answer publishes it as soon as it comes.

pub mod prompts;
pub mod skills;

use crate::state::{lock, SharedState};
use crate::wire::params::InputItem;
use agent_bridge_core::rpc::PeerHandle;
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ProviderCommand, ProviderError};
use prompts::CustomPrompt;
use skills::Skill;
use std::path::PathBuf;

/// What a session knows of its commands (in the shared state: the reader updates it).
#[derive(Debug, Default)]
pub struct Commands {
    /// The folder skills are listed for.
    pub cwd: String,
    /// `$CODEX_HOME/prompts`, when the environment names a home.
    pub prompts_dir: Option<PathBuf>,
    prompts: Vec<CustomPrompt>,
    /// `None` until the first listing answered (or failed).
    skills: Option<Vec<Skill>>,
    /// The list the host has; `None` until the open published one.
    published: Option<Vec<ProviderCommand>>,
    /// Listings asked for / the newest one applied (an older answer is dropped).
    asked: u64,
    applied: u64,
}

impl Commands {
    pub fn new(cwd: &str, prompts_dir: Option<PathBuf>) -> Self {
        Commands {
            cwd: cwd.to_string(),
            prompts_dir,
            ..Commands::default()
        }
    }

    /// Every command: the skills, then the prompts (`prompts:<name>`).
    pub fn list(&self) -> Vec<ProviderCommand> {
        let skills = self.skills.iter().flatten().map(|s| ProviderCommand {
            name: s.name.clone(),
            description: s.description.clone(),
            argument_hint: None,
        });
        let prompts = self.prompts.iter().map(|p| ProviderCommand {
            name: format!("{}{}", prompts::PREFIX, p.name),
            description: p
                .description
                .clone()
                .unwrap_or_else(|| "send saved prompt".into()),
            argument_hint: p.argument_hint.clone(),
        });
        skills.chain(prompts).collect()
    }

    /// The open's list: all of it once the skills are known, else none yet (the skills' answer
    /// then publishes the whole list: the core keeps a list sent while opening only when the
    /// open returned none).
    pub fn open_list(&mut self) -> Vec<ProviderCommand> {
        let list = match self.skills {
            Some(_) => self.list(),
            None => Vec::new(),
        };
        self.published = Some(list.clone());
        list
    }

    /// Replaces the prompts; the event to send when the host's list changed.
    pub fn set_prompts(&mut self, prompts: Vec<CustomPrompt>) -> Option<AgentEvent> {
        self.prompts = prompts;
        self.republish()
    }

    /// A skills listing answered (`Err`: failed, the skills known stay); the event to send
    /// when the host's list changed. An answer older than one applied is dropped.
    pub fn skills_answered(
        &mut self,
        ticket: u64,
        skills: Option<Vec<Skill>>,
        prompts: Vec<CustomPrompt>,
    ) -> Option<AgentEvent> {
        if ticket < self.applied {
            return None;
        }
        self.applied = ticket;
        match skills {
            Some(s) => self.skills = Some(s),
            None => {
                self.skills.get_or_insert_with(Vec::new);
            }
        }
        self.set_prompts(prompts)
    }

    fn republish(&mut self) -> Option<AgentEvent> {
        if self.published.is_none() || self.skills.is_none() {
            return None;
        }
        let list = self.list();
        if self.published.as_ref() == Some(&list) {
            return None;
        }
        self.published = Some(list.clone());
        Some(AgentEvent::Commands(list))
    }

    /// What runs the command `name` (without its `/`) with `arguments`.
    pub fn input(&self, name: &str, arguments: &str) -> Result<Vec<InputItem>, ProviderError> {
        if let Some(stem) = name.strip_prefix(prompts::PREFIX) {
            if let Some(prompt) = self.prompts.iter().find(|p| p.name == stem) {
                let text = prompts::expand(prompt, arguments).map_err(|e| {
                    ProviderError::new(format!("/{name}: {e}"))
                        .with_code(ErrorCode::InvalidArguments)
                })?;
                return Ok(vec![InputItem::Text { text }]);
            }
        } else if let Some(skill) = self.skills.iter().flatten().find(|s| s.name == name) {
            return Ok(vec![
                InputItem::Text {
                    text: skills::mention(&skill.name, arguments),
                },
                InputItem::Skill {
                    name: skill.name.clone(),
                    path: skill.path.clone(),
                },
            ]);
        }
        let known: Vec<String> = self.list().into_iter().map(|c| c.name).collect();
        Err(ProviderError::new(format!(
            "unknown Codex command `/{name}` (this session offers: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
        .with_code(ErrorCode::UnknownCommand))
    }
}

/// The prompts folder of the app-server `spec` starts (its `CODEX_HOME`, else `~/.codex`).
pub fn prompts_dir_of(spec: &SpawnSpec) -> Option<PathBuf> {
    let env = spec.effective_env();
    prompts::dir(
        env.get("CODEX_HOME").map(String::as_str),
        env.get("HOME").map(String::as_str),
    )
}

/// The prompts of `dir` (read off the async threads).
pub async fn read_prompts(dir: Option<PathBuf>) -> Vec<CustomPrompt> {
    let Some(dir) = dir else {
        return Vec::new();
    };
    tokio::task::spawn_blocking(move || prompts::discover(&dir))
        .await
        .unwrap_or_default()
}

/// Lists the skills (and reads the prompts) in the background; publishes the list when it
/// changed (see [`Commands::skills_answered`]).
pub fn refresh(shared: &SharedState, rpc: &PeerHandle, sink: &SessionSink) {
    let (ticket, cwd, dir) = {
        let mut s = lock(shared);
        s.commands.asked += 1;
        (
            s.commands.asked,
            s.commands.cwd.clone(),
            s.commands.prompts_dir.clone(),
        )
    };
    let (shared, rpc, sink) = (shared.clone(), rpc.clone(), sink.clone());
    tokio::spawn(async move {
        let (listed, prompts) = tokio::join!(skills::list(&rpc, &cwd), read_prompts(dir));
        let skills = match listed {
            Ok(l) => Some(l),
            Err(e) => {
                tracing::warn!("skills/list failed: {e}");
                None
            }
        };
        let event = lock(&shared)
            .commands
            .skills_answered(ticket, skills, prompts);
        if let Some(event) = event {
            sink.send(event).await;
        }
    });
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
