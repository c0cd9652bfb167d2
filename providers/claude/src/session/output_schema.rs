//! A prompt's output schema (`prompt.output_schema`). Claude Code takes it as a process flag
//! (`--json-schema`) and enforces it through a `StructuredOutput` tool it offers the model: the
//! run's `result` carries the answer as `structured_output`, or fails with
//! `error_max_structured_output_retries` when the model's answers never fit. So a prompt whose
//! schema differs from the running CLI's starts the CLI again with `--resume` (as a thinking
//! change does), once the last run is on disk. A run that ends without a structured answer
//! (the model never called the tool; the CLI reports success) fails here.

use super::ClaudeSession;
use crate::{saved, transcript};
use agent_bridge_core::lifecycle::lock;
use agent_bridge_protocol::{ErrorCode, ProviderError};
use serde_json::Value;
use std::time::{Duration, Instant};

/// How long a schema change waits for the last run's transcript entries (Claude Code writes
/// them from a 100 ms timer, see [`crate::saved`]).
const SAVE_WAIT: Duration = Duration::from_secs(10);
/// How often the transcript is looked at meanwhile.
const SAVE_POLL: Duration = Duration::from_millis(20);

/// The failure of a run that ended without the structured answer its schema asked for.
pub fn no_structured_output() -> ProviderError {
    ProviderError::new(
        "Claude Code ended the turn without a structured answer: the model never called its \
         StructuredOutput tool, so the reply does not follow the prompt's output schema",
    )
    .with_code(ErrorCode::AgentError)
}

/// The `--json-schema` text of a prompt's schema.
pub fn schema_text(schema: Option<&Value>) -> Option<String> {
    schema.map(Value::to_string)
}

impl ClaudeSession {
    /// Makes the CLI answer with `wanted` (a schema's text, or none): a CLI started with
    /// another one is replaced by one resuming the conversation with `wanted`.
    pub(crate) async fn use_output_schema(
        &mut self,
        wanted: Option<String>,
    ) -> Result<(), ProviderError> {
        if self.relaunch.opts.json_schema == wanted {
            return Ok(());
        }
        let (config, native) = {
            let s = lock(&self.runtime.shared);
            (s.config.clone(), s.native_session_id.clone())
        };
        if native.is_some() {
            self.wait_last_run_saved().await;
        }
        let previous = std::mem::replace(&mut self.relaunch.opts.json_schema, wanted);
        let what = "restart for a prompt's output schema";
        if let Err(e) = self.replace_runtime(&config, native, what).await {
            self.relaunch.opts.json_schema = previous;
            return Err(e);
        }
        Ok(())
    }

    /// Waits (at most [`SAVE_WAIT`]) until the transcript holds the last run's last entry, so
    /// that a CLI started with `--resume` now finds the whole conversation.
    async fn wait_last_run_saved(&self) {
        let (native, cwd, entry) = {
            let s = lock(&self.runtime.shared);
            (
                s.native_session_id.clone(),
                s.cwd.clone(),
                s.last_entry.clone(),
            )
        };
        let Some(native) = native else { return };
        let projects =
            transcript::projects_dir(&self.relaunch.launch.effective_env(&self.relaunch.env));
        let deadline = Instant::now() + SAVE_WAIT;
        while !saved::on_disk(projects.as_deref(), &cwd, &native, entry.as_deref()).await {
            if Instant::now() >= deadline {
                tracing::warn!(native = %native, "the last run is not on disk yet; resuming anyway");
                return;
            }
            tokio::time::sleep(SAVE_POLL).await;
        }
    }
}
