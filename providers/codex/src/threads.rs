//! The session's thread on a fresh app-server: `thread/resume` of a known thread (history left
//! out of the answer), or `thread/start`; a thread Codex refuses to resume (no rollout, an
//! unreadable one) is replaced by a new thread with the same settings. Used by open (a
//! persisted thread) and by a restart (the thread the session was running).

use crate::launch::call_error;
use crate::wire::notify::method;
use crate::wire::params::{ThreadResumeParams, ThreadStartParams};
use agent_bridge_core::lifecycle::AgentRuntime;
use agent_bridge_core::rpc::PeerError;
use agent_bridge_protocol::ProviderError;
use serde_json::{json, Value};

/// What the app-server answered for the session's thread.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadAnswer {
    /// The `thread/resume` or `thread/start` answer.
    pub answer: Value,
    /// The asked-for thread was resumed.
    pub resumed: bool,
    /// Why Codex refused to resume the asked-for thread (then `answer` is a new thread's).
    pub resume_refused: Option<String>,
}

/// Resumes `thread_id` (a new thread if Codex refuses it) or, without one, starts a thread;
/// both with `overrides`. A dead or silent app-server is an error.
pub async fn resume_or_start(
    server: &AgentRuntime,
    thread_id: Option<&str>,
    overrides: ThreadStartParams,
) -> Result<ThreadAnswer, ProviderError> {
    let stderr = || server.process.stderr_tail();
    let start = |overrides: ThreadStartParams| async move {
        server
            .rpc
            .call(method::THREAD_START, json!(overrides))
            .await
            .map_err(|e| call_error(e, &server.process.stderr_tail()))
    };
    let Some(thread_id) = thread_id else {
        return Ok(ThreadAnswer {
            answer: start(overrides).await?,
            resumed: false,
            resume_refused: None,
        });
    };
    let params = ThreadResumeParams {
        thread_id: thread_id.to_string(),
        overrides: overrides.clone(),
        exclude_turns: true,
    };
    match server.rpc.call(method::THREAD_RESUME, json!(params)).await {
        Ok(answer) => Ok(ThreadAnswer {
            answer,
            resumed: true,
            resume_refused: None,
        }),
        Err(PeerError::Rpc { error, .. }) => {
            tracing::warn!("thread/resume {thread_id} failed ({error}); starting a new thread");
            Ok(ThreadAnswer {
                answer: start(overrides).await?,
                resumed: false,
                resume_refused: Some(error.message),
            })
        }
        Err(e) => Err(call_error(e, &stderr())),
    }
}
