//! Claude Code's structured output (`--json-schema`): the CLI offers the model a
//! `StructuredOutput` tool whose input schema is the answer's schema, and takes the answer
//! from its call. The mock calls it with a value synthesized from that schema
//! ([`crate::schema::synthesize`]) — after the shell call a "run `CMD`" prompt asks for, once
//! its result is back.
//!
//! Two trigger words, looked for in every user text of the request (the CLI's own follow-up
//! messages, such as its "[structured-output-enforce]" reminder, must not hide them):
//! - [`NEVER_CALL`]: the mock never calls the tool (it answers text, as without it);
//! - [`BAD_CALL`]: every call carries an input the schema refuses (one property the schema
//!   does not name, no other), so the CLI's validation fails each time.

use crate::conversation::Conversation;
use crate::reply::{run_command, Reply};
use crate::schema;
use serde_json::json;

/// The tool Claude Code offers for structured output.
pub const TOOL: &str = "StructuredOutput";

/// In a prompt: the mock never calls [`TOOL`].
pub const NEVER_CALL: &str = "NO-STRUCTURED-OUTPUT";

/// In a prompt: the mock calls [`TOOL`] with input its schema refuses.
pub const BAD_CALL: &str = "BAD-STRUCTURED-OUTPUT";

/// The reply to a request that offers [`TOOL`]; `None` when the other rules answer.
pub fn reply(conv: &Conversation) -> Option<Reply> {
    let tool = conv.tools.iter().find(|t| t.name == TOOL)?;
    if conv.user_history.contains(NEVER_CALL) {
        return None;
    }
    let bad = conv.user_history.contains(BAD_CALL);
    match conv.tool_result_of.as_deref() {
        // The CLI took the answer; anything after it is ordinary text.
        Some(TOOL) if !bad => return None,
        Some(_) => {}
        None if run_command(conv.prompt.as_deref().unwrap_or("")).is_some() => return None,
        None => {}
    }
    let arguments = if bad {
        json!({"mock_not_in_schema": true})
    } else {
        schema::synthesize(&tool.schema)
    };
    Some(Reply::ToolCall {
        name: TOOL.into(),
        arguments,
        namespace: None,
    })
}
