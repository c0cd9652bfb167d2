//! Agentty's limits on a plugin, and the margins this plugin keeps under them.
//!
//! Read from Agentty's host (`crates/agentty-app/src/plugins/mod.rs`, `process.rs`,
//! `crates/agentty-bridge/src/plugins/ui.rs`):
//! - more than 240 messages in one second stops the plugin; stdout lines (JSON or not) and
//!   stderr lines count alike, in a window that starts at the first message after the last
//!   window ended (`MAX_MESSAGES_PER_SECOND`);
//! - `ui/notify` faster than one per 700 ms is dropped (`NOTIFY_INTERVAL`);
//! - a tree over 2,000 elements or nested deeper than 12 levels is refused: every node counts,
//!   and so does every list row, row button and choice option (`MAX_NODES`, `MAX_DEPTH`);
//!   strings over 20,000 characters are cut (`MAX_TEXT`);
//! - a line over 16 MB is refused (`MAX_LINE_BYTES`);
//! - 1.5 s after `shutdown` comes SIGTERM, 1.5 s later SIGKILL (`PluginProcess::stop`).

use std::time::Duration;

/// Agentty stops a plugin that sends more than this in a second.
pub const HOST_MESSAGES_PER_SECOND: usize = 240;
/// What this plugin allows itself on stdout in any rolling second.
pub const STDOUT_PER_SECOND: usize = 200;
/// What the log may write to stderr in any rolling second (a burst), and on average.
pub const LOG_BURST: u32 = 10;
pub const LOG_PER_SECOND: u32 = 5;

/// `ui/setPanel` at most this often while something changes (about 10 a second).
pub const PANEL_INTERVAL: Duration = Duration::from_millis(100);
/// While the panel is closed, the tree is still kept current, but less often.
pub const HIDDEN_PANEL_INTERVAL: Duration = Duration::from_secs(1);
/// Agentty drops `ui/notify` calls closer than 700 ms apart; this keeps a margin.
pub const NOTIFY_INTERVAL: Duration = Duration::from_millis(750);

/// Agentty's tree limits.
pub const HOST_MAX_NODES: usize = 2_000;
pub const HOST_MAX_DEPTH: usize = 12;
/// The tree this plugin draws stays under this many elements (rows and buttons included).
pub const NODE_BUDGET: usize = 1_500;
/// Longest line Agentty reads.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// A tree is sent only below this size, far under the line limit.
pub const MAX_TREE_BYTES: usize = 4 * 1024 * 1024;

/// Timeline rows drawn at most; older rows are summarised in one row.
pub const TIMELINE_WINDOW: usize = 120;
/// Earlier sessions listed at most.
pub const SESSIONS_SHOWN: usize = 30;
/// Options of one choice (models, modes) at most.
pub const CHOICE_OPTIONS: usize = 30;
/// Options offered on one question row at most.
pub const QUESTION_OPTIONS: usize = 6;

/// Characters of a message row's text, of a tool row's title, of subtitles and details.
pub const MESSAGE_CHARS: usize = 4_000;
pub const TITLE_CHARS: usize = 240;
pub const SUBTITLE_CHARS: usize = 300;
pub const DETAIL_CHARS: usize = 300;

/// Bridge sessions kept open at once; the oldest idle one is closed past this.
pub const OPEN_SESSIONS: usize = 4;
/// Sessions remembered in the index file.
pub const STORED_SESSIONS: usize = 200;

/// The whole shutdown (closing every session, stopping the core) is given this long, well
/// inside Agentty's 1.5 s before SIGTERM; what is left then is killed with the runtime.
pub const SHUTDOWN_BUDGET: Duration = Duration::from_millis(1_000);

/// A second opinion carries at most this many of the pane's turns, each cut to
/// `SECOND_TURN_CHARS`, and at most `SECOND_CONTEXT_CHARS` in all (the newest kept).
pub const SECOND_TURNS: u64 = 40;
pub const SECOND_TURN_CHARS: usize = 4_000;
pub const SECOND_CONTEXT_CHARS: usize = 48_000;

/// How long an availability check of one agent may take.
pub const AVAILABILITY_TIMEOUT: Duration = Duration::from_secs(10);

/// `text` cut to `max` characters, ending in `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let mut s = text[..at].to_string();
            s.push('…');
            s
        }
        None => text.to_string(),
    }
}

/// The last `max` characters of `text`, starting with `…` when cut (for command output).
pub fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let skip = count - max;
    let mut s = String::from("…");
    s.extend(text.chars().skip(skip));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_characters_not_bytes() {
        assert_eq!(cut("héllo", 10), "héllo");
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(tail("héllo", 3), "…llo");
        assert_eq!(tail("abc", 3), "abc");
    }
}
