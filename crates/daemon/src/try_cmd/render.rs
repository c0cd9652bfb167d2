//! Renders one turn's events for a human: streamed text (only the new suffix of each growing
//! snapshot), tool calls with their status and a short output, permission requests, usage and
//! the outcome. Knows nothing of the wire; writes to any `Write`.

use super::term::{excerpt, truncate, Spinner, Style};
use agent_bridge_protocol::{
    ItemBody, Json, ProviderPermissionRequest, ProviderUsage, TimelineItem, ToolCall,
    ToolCallDetail, ToolStatus,
};
use std::collections::HashMap;
use std::io::Write;

/// Lines of tool output shown.
const OUTPUT_LINES: usize = 6;
/// Characters per shown line.
const COLUMNS: usize = 110;

/// How a turn ended, as shown and as the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    Completed,
    Failed(String),
    Canceled,
}

/// What a new snapshot of a streamed text adds to what was printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta<'a> {
    Unchanged,
    /// The snapshot extends the printed text by this suffix.
    Append(&'a str),
    /// The snapshot does not start with the printed text: the whole text again.
    Rewrite(&'a str),
}

pub fn delta<'a>(printed: &str, snapshot: &'a str) -> Delta<'a> {
    if snapshot == printed {
        Delta::Unchanged
    } else if let Some(suffix) = snapshot.strip_prefix(printed) {
        Delta::Append(suffix)
    } else {
        Delta::Rewrite(snapshot)
    }
}

pub struct Renderer<W: Write> {
    out: W,
    style: Style,
    spinner: Spinner,
    /// Text printed so far for each streamed row, by item id.
    printed: HashMap<String, String>,
    /// The streamed row the cursor currently follows (its next suffix continues in place).
    open_stream: Option<String>,
    at_line_start: bool,
    tools: HashMap<String, ToolStatus>,
    usage: Option<ProviderUsage>,
}

impl<W: Write> Renderer<W> {
    pub fn new(out: W, style: Style, spinner: Spinner) -> Self {
        Self {
            out,
            style,
            spinner,
            printed: HashMap::new(),
            open_stream: None,
            at_line_start: true,
            tools: HashMap::new(),
            usage: None,
        }
    }

    /// Advances the spinner, unless text is half-way through a line.
    pub fn tick(&mut self) {
        if self.at_line_start {
            self.spinner.tick();
        }
    }

    /// The turn starts: the spinner counts from now.
    pub fn begin_turn(&mut self) {
        self.spinner.restart();
    }

    pub fn spinner_enabled(&self) -> bool {
        self.spinner.enabled()
    }

    fn write(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.spinner.clear();
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
        self.at_line_start = text.ends_with('\n');
    }

    /// Prints a full line, starting a fresh one first if needed.
    pub fn line(&mut self, text: &str) {
        if !self.at_line_start {
            self.write("\n");
        }
        self.open_stream = None;
        self.write(&format!("{text}\n"));
    }

    /// Ends a half-printed line, if any (and hides the spinner).
    pub fn finish_line(&mut self) {
        self.spinner.clear();
        if !self.at_line_start {
            self.write("\n");
        }
        self.open_stream = None;
    }

    pub fn info(&mut self, text: &str) {
        let t = self.style.dim(text);
        self.line(&t);
    }

    pub fn warn(&mut self, text: &str) {
        let t = self.style.yellow(&format!("! {text}"));
        self.line(&t);
    }

    pub fn error(&mut self, text: &str) {
        let t = self.style.red(&format!("✗ {text}"));
        self.line(&t);
    }

    /// Renders one timeline snapshot.
    pub fn item(&mut self, item: &TimelineItem) {
        match &item.body {
            ItemBody::UserMessage { text, .. } => {
                let marker = self.style.cyan("›");
                self.line(&format!("{marker} {}", truncate(text, COLUMNS)));
            }
            ItemBody::AssistantMessage { text, .. } => self.stream(&item.id, text, false),
            ItemBody::Reasoning { text } => self.stream(&item.id, text, true),
            ItemBody::ToolCall(call) => self.tool(&item.id, call),
            ItemBody::Todo { items } => {
                let s = self.style;
                self.line(&s.dim("todo:"));
                for entry in items {
                    let mark = if entry.completed { "[x]" } else { "[ ]" };
                    self.line(&format!("  {mark} {}", truncate(&entry.text, COLUMNS)));
                }
            }
            ItemBody::Error { message } => self.error(message),
            ItemBody::Notification { message, .. } => self.info(&format!("note: {message}")),
            ItemBody::Compaction { status, .. } => {
                self.info(&format!("context compaction: {status:?}").to_lowercase())
            }
            ItemBody::Plugin { kind, .. } => self.info(&format!("[{kind}]")),
        }
    }

    fn stream(&mut self, id: &str, snapshot: &str, reasoning: bool) {
        let printed = self.printed.get(id).map(String::as_str).unwrap_or("");
        let piece = match delta(printed, snapshot) {
            Delta::Unchanged => return,
            Delta::Append(suffix) => {
                if self.open_stream.as_deref() != Some(id) && !self.at_line_start {
                    self.write("\n");
                }
                suffix.to_string()
            }
            Delta::Rewrite(all) => {
                let marker = self.style.dim("↺ ");
                self.finish_line();
                format!("{marker}{all}")
            }
        };
        let piece = if reasoning {
            self.style.dim(&piece)
        } else {
            piece
        };
        self.write(&piece);
        self.open_stream = Some(id.to_string());
        self.printed.insert(id.to_string(), snapshot.to_string());
    }

    fn tool(&mut self, id: &str, call: &ToolCall) {
        let previous = self.tools.insert(id.to_string(), call.status);
        if previous == Some(call.status) {
            return;
        }
        let s = self.style;
        let label = format!("{} {}", s.bold(&call.name), tool_label(&call.detail));
        let activity = match call.status {
            ToolStatus::Running => format!("running {}", call.name),
            _ => "working".to_string(),
        };
        self.spinner.set_label(&activity);
        match call.status {
            ToolStatus::Running => {
                self.line(&format!("{} {label} {}", s.yellow("•"), s.dim("(running)")))
            }
            ToolStatus::Completed => {
                let exit = exit_note(&call.detail);
                self.line(&format!("{} {label}{}", s.green("✓"), s.dim(&exit)));
                self.tool_output(&call.detail);
            }
            ToolStatus::Failed => {
                let why = error_text(&call.error);
                self.line(&format!(
                    "{} {label} {}",
                    s.red("✗"),
                    s.red(&format!("failed: {why}"))
                ));
                self.tool_output(&call.detail);
            }
            ToolStatus::Canceled => {
                self.line(&format!("{} {label} {}", s.yellow("⊘"), s.dim("canceled")))
            }
        }
    }

    fn tool_output(&mut self, detail: &ToolCallDetail) {
        let Some(output) = tool_output(detail) else {
            return;
        };
        let bar = self.style.dim("  │ ");
        for l in excerpt(&output, OUTPUT_LINES, COLUMNS) {
            self.line(&format!("{bar}{l}"));
        }
    }

    /// Shows a permission request (the question is asked by the caller).
    pub fn permission(&mut self, request: &ProviderPermissionRequest) {
        let s = self.style;
        let title = request
            .title
            .clone()
            .unwrap_or_else(|| format!("{} wants permission", request.name));
        self.line(&format!("{} {}", s.yellow("?"), s.bold(&title)));
        if let Some(d) = &request.description {
            self.line(&format!("  {}", s.dim(&truncate(d, COLUMNS))));
        }
        if let Some(detail) = &request.detail {
            self.line(&format!("  {}", tool_label(detail)));
        }
    }

    pub fn set_usage(&mut self, usage: ProviderUsage) {
        self.usage = Some(usage);
    }

    /// Prints usage (when the agent reported any) and the outcome.
    pub fn end(&mut self, end: &TurnEnd) {
        self.finish_line();
        if let Some(u) = self.usage.clone() {
            if let Some(text) = usage_text(&u) {
                let t = self.style.dim(&format!("usage: {text}"));
                self.line(&t);
            }
        }
        let s = self.style;
        let text = match end {
            TurnEnd::Completed => s.green("── turn completed"),
            TurnEnd::Failed(why) => s.red(&format!("── turn failed: {why}")),
            TurnEnd::Canceled => s.yellow("── turn canceled"),
        };
        self.line(&text);
    }

    #[cfg(test)]
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// One short line naming what a tool call does.
pub fn tool_label(detail: &ToolCallDetail) -> String {
    let text = match detail {
        ToolCallDetail::Shell { command, .. } => format!("$ {command}"),
        ToolCallDetail::Read { file_path, .. } => format!("read {file_path}"),
        ToolCallDetail::Edit { file_path, .. } => format!("edit {file_path}"),
        ToolCallDetail::Write { file_path, .. } => format!("write {file_path}"),
        ToolCallDetail::Search(s) => format!("search {:?}", s.query),
        ToolCallDetail::Fetch(f) => format!("fetch {}", f.url),
        ToolCallDetail::WorktreeSetup { worktree_path, .. } => format!("worktree {worktree_path}"),
        ToolCallDetail::SubAgent { description, .. } => {
            format!("sub-agent {}", description.as_deref().unwrap_or(""))
        }
        ToolCallDetail::PlainText { label, text, .. } => label
            .as_deref()
            .or(text.as_deref())
            .unwrap_or("")
            .to_string(),
        ToolCallDetail::Plan { .. } => "plan".into(),
        ToolCallDetail::Unknown { input, .. } => input.to_string(),
    };
    truncate(text.trim_end(), COLUMNS)
}

fn exit_note(detail: &ToolCallDetail) -> String {
    match detail {
        ToolCallDetail::Shell {
            exit_code: Some(Some(code)),
            ..
        } => format!(" (exit {code})"),
        _ => String::new(),
    }
}

/// The part of a tool call's detail worth showing as output.
fn tool_output(detail: &ToolCallDetail) -> Option<String> {
    let text = match detail {
        ToolCallDetail::Shell { output, .. } => output.clone(),
        ToolCallDetail::Edit { unified_diff, .. } => unified_diff.clone(),
        ToolCallDetail::Search(s) => s.content.clone(),
        ToolCallDetail::Fetch(f) => f.result.clone(),
        ToolCallDetail::SubAgent { log, .. } | ToolCallDetail::WorktreeSetup { log, .. } => {
            Some(log.clone())
        }
        ToolCallDetail::PlainText { text, label, .. } => text.clone().filter(|_| label.is_some()),
        ToolCallDetail::Plan { text } => Some(text.clone()),
        ToolCallDetail::Unknown { output, .. } => (!output.is_null()).then(|| output.to_string()),
        ToolCallDetail::Read { .. } | ToolCallDetail::Write { .. } => None,
    };
    text.filter(|t| !t.trim().is_empty())
}

/// A tool call's `error` as one line.
pub fn error_text(error: &Json) -> String {
    let text = match error {
        Json::String(s) => s.clone(),
        Json::Object(o) => match o.get("message").and_then(Json::as_str) {
            Some(m) => m.to_string(),
            None => error.to_string(),
        },
        Json::Null => "failed".into(),
        other => other.to_string(),
    };
    truncate(&text, COLUMNS)
}

/// Usage as one line; `None` when the agent reported nothing useful.
pub fn usage_text(u: &ProviderUsage) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(n) = u.input_tokens {
        match u.cached_input_tokens.filter(|c| *c > 0) {
            Some(c) => parts.push(format!("{n} input tokens ({c} cached)")),
            None => parts.push(format!("{n} input tokens")),
        }
    }
    if let Some(n) = u.output_tokens {
        parts.push(format!("{n} output tokens"));
    }
    match (u.context_window_used_tokens, u.context_window_max_tokens) {
        (Some(used), Some(max)) => parts.push(format!("context {used}/{max}")),
        (Some(used), None) => parts.push(format!("context {used}")),
        _ => {}
    }
    if let Some(cost) = u.total_cost_usd.filter(|c| *c > 0.0) {
        parts.push(format!("${cost:.4}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
