//! The default, stateless reply rules (the script in [`crate::script`] can override them).
//!
//! 1. structured-output request without tools -> a JSON object synthesized from the schema;
//!    a request offering Claude Code's `StructuredOutput` tool -> a call of it (see
//!    [`crate::structured`]);
//! 2. the last non-system message is a tool result -> `"Done. The command printed: <output>"`;
//! 3. the prompt contains run `CMD` and the client declared a shell tool -> a call of it;
//! 4. the prompt contains `SLOW` -> text streamed slowly (40 chunks, 150 ms apart);
//! 5. otherwise "hi! (mock reply N)".

use crate::conversation::{Conversation, ToolDecl};
use crate::schema;
use serde_json::Value;
use std::time::Duration;

/// Shell tool names the mock recognises, most specific first.
pub const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "exec_command",
    "run_shell_command",
    "shell",
    "shell_command",
    "bash",
    "local_shell",
    "execute_command",
    "run_command",
    "run_commands",
    // Factory Droid's shell tool (required `summary`, `riskLevel`, `riskLevelReason`).
    "Execute",
    // Grok Build's shell tool.
    "run_terminal_command",
    // Deep Agents Code's shell tool.
    "execute",
    // OpenHands' shell tool (required `security_risk` enum: LOW).
    "terminal",
];

/// Default number of chunks of a slow reply.
pub const SLOW_CHUNKS: usize = 40;
/// Default pause between chunks of a slow reply.
pub const SLOW_INTERVAL: Duration = Duration::from_millis(150);

/// What the mock answers, independent of the API family.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A text answer, streamed in one or two deltas.
    Text(String),
    /// A text answer streamed as `chunks` with `interval` between them (interrupt tests).
    SlowText {
        chunks: Vec<String>,
        interval: Duration,
    },
    /// A call of the tool `name` with JSON `arguments`. `namespace` names the tool group the
    /// tool belongs to (OpenAI Responses `function_call.namespace`, e.g. Codex's
    /// `multi_agent_v1`); the other families have no namespaces and ignore it.
    ToolCall {
        name: String,
        arguments: Value,
        namespace: Option<String>,
    },
    /// An HTTP error with the family's error body.
    Error { status: u16, message: String },
}

impl Reply {
    /// Short label for the request log.
    pub fn label(&self) -> String {
        match self {
            Reply::Text(_) => "text".into(),
            Reply::SlowText { .. } => "slow-text".into(),
            Reply::ToolCall { name, .. } => format!("tool-call:{name}"),
            Reply::Error { status, .. } => format!("error:{status}"),
        }
    }

    /// The full text of a text reply (concatenated chunks for a slow one).
    pub fn text(&self) -> Option<String> {
        match self {
            Reply::Text(t) => Some(t.clone()),
            Reply::SlowText { chunks, .. } => Some(chunks.concat()),
            Reply::ToolCall { .. } | Reply::Error { .. } => None,
        }
    }

    /// A slow text of `n` chunks.
    pub fn slow(n: usize, interval: Duration) -> Reply {
        let chunks = (1..=n.max(1))
            .map(|i| format!("slow chunk {i}/{n}. "))
            .collect();
        Reply::SlowText { chunks, interval }
    }
}

/// The default reply for a conversation; `counter` numbers the "hi!" replies.
pub fn default_reply(conv: &Conversation, counter: u64) -> Reply {
    if let (Some(schema), Some(name)) = (&conv.json_schema, &conv.strict_schema) {
        // As OpenAI's strict mode: a schema it cannot guarantee is refused before any answer.
        return match schema::strict_problem(schema) {
            Some(problem) => Reply::Error {
                status: 400,
                message: format!("Invalid schema for response_format '{name}': {problem}"),
            },
            None => Reply::Text(schema::synthesize(schema).to_string()),
        };
    }
    if let Some(reply) = crate::structured::reply(conv) {
        return reply;
    }
    if let Some(schema) = conv.json_schema.as_ref().filter(|_| conv.tools.is_empty()) {
        return Reply::Text(schema::synthesize(schema).to_string());
    }
    if let Some(output) = &conv.tool_result {
        return Reply::Text(format!(
            "Done. The command printed: {}",
            clean_tool_output(output)
        ));
    }
    let prompt = conv.prompt.as_deref().unwrap_or("");
    if let Some(cmd) = run_command(prompt) {
        if let Some(reply) = shell_call(&conv.tools, &cmd) {
            return reply;
        }
    }
    if prompt.contains("SLOW") {
        return Reply::slow(SLOW_CHUNKS, SLOW_INTERVAL);
    }
    Reply::Text(format!("hi! (mock reply {counter})"))
}

/// The shell tool among `tools` (by [`SHELL_TOOLS`] preference).
pub fn find_shell_tool(tools: &[ToolDecl]) -> Option<&ToolDecl> {
    SHELL_TOOLS
        .iter()
        .find_map(|name| tools.iter().find(|t| t.name == *name))
}

/// A call of the declared shell tool running `cmd`, if there is one.
pub fn shell_call(tools: &[ToolDecl], cmd: &str) -> Option<Reply> {
    find_shell_tool(tools).map(|tool| Reply::ToolCall {
        name: tool.name.clone(),
        arguments: schema::shell_arguments(&tool.schema, cmd),
        namespace: None,
    })
}

/// The command of the last "run `CMD`" in the prompt.
pub fn run_command(prompt: &str) -> Option<String> {
    let mut found = None;
    let mut rest = prompt;
    while let Some(pos) = rest.find("run `") {
        let after = &rest[pos + 5..];
        match after.find('`') {
            Some(end) if end > 0 => {
                found = Some(after[..end].to_string());
                rest = &after[end + 1..];
            }
            _ => rest = after,
        }
    }
    found
}

/// The command output inside a CLI's tool-result text. Codex, Gemini and Qwen wrap it
/// (`Chunk ID: ..\nOutput:\nhello`, `<untrusted_context>\nOutput: hello\nProcess Group PGID: N`,
/// `Command: ..\nOutput: hello\nError: (none)\nExit Code: 0`); Claude and OpenCode send it bare.
pub fn clean_tool_output(raw: &str) -> String {
    const END_LABELS: &[&str] = &[
        "Error:",
        "Exit Code:",
        "Signal:",
        "Background PIDs:",
        "Process Group PGID:",
        "</untrusted_context>",
    ];
    let lines: Vec<&str> = raw.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("Output:"))
    else {
        return raw.trim().to_string();
    };
    let mut out = Vec::new();
    let first = lines[start]
        .trim_start()
        .trim_start_matches("Output:")
        .trim();
    if !first.is_empty() {
        out.push(first);
    }
    for line in &lines[start + 1..] {
        if END_LABELS.iter().any(|l| line.trim_start().starts_with(l)) {
            break;
        }
        out.push(line);
    }
    out.join("\n").trim().to_string()
}

#[cfg(test)]
#[path = "reply_tests.rs"]
mod tests;
