//! Running a command (see [`crate::commands`]): the prompts folder is read again first (a
//! prompt added since the open runs, and the host's list follows), then the skill or prompt
//! becomes the turn's input.

use super::CodexSession;
use crate::state::lock;
use crate::wire::params::InputItem;
use agent_bridge_protocol::ProviderError;

impl CodexSession {
    /// The input that runs `name` (without its `/`) with `arguments`.
    pub(super) async fn command_input(
        &self,
        name: &str,
        arguments: &str,
    ) -> Result<Vec<InputItem>, ProviderError> {
        let dir = lock(&self.shared).commands.prompts_dir.clone();
        let prompts = crate::commands::read_prompts(dir).await;
        let (changed, input) = {
            let mut s = lock(&self.shared);
            let changed = s.commands.set_prompts(prompts);
            (changed, s.commands.input(name, arguments))
        };
        if let Some(event) = changed {
            self.sink.send(event).await;
        }
        input
    }
}
