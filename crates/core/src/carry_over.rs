//! What a session carries into a new conversation when its agent lost the old one.
//!
//! An agent restarted after a crash resumes its native session where it can. Where it cannot
//! (the CLI died before it saved the conversation, or the saved conversation is gone), the
//! agent starts a new conversation ([`Restarted::Fresh`](crate::Restarted::Fresh)) and the
//! model would not know what the user and it said before. The core keeps a bounded log of the
//! session's exchanged text ([`ConversationLog`]: user prompts and assistant replies, the
//! newest [`LOG_BYTES`] of them) and hands it to the model with the next prompt, inside an
//! envelope ([`wrap`]) that a replay of that conversation strips again ([`strip`]), so the
//! timeline shows what the user wrote, not the context.

use agent_bridge_protocol::{ItemBody, TimelineItem};
use std::collections::{HashMap, VecDeque};

/// How much exchanged text the log keeps (the newest; older entries are dropped whole, a
/// single longer entry is cut at its start).
pub const LOG_BYTES: usize = 16 * 1024;

/// The envelope's opening line: a replayed user message that starts with it had context
/// prepended by the bridge.
const OPEN: &str = "<agent-bridge-context>";
const CLOSE: &str = "</agent-bridge-context>";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

#[derive(Debug)]
struct Entry {
    id: String,
    role: Role,
    text: String,
}

/// The newest user and assistant text of a session, bounded by [`LOG_BYTES`].
#[derive(Debug, Default)]
pub struct ConversationLog {
    entries: VecDeque<Entry>,
    bytes: usize,
    /// Where each entry's id is: its sequence number (the front entry's is `front_seq`), so a
    /// snapshot finds its entry at once however many small rows the log holds (a recording
    /// runs for every row the session emits).
    seq_of: HashMap<String, u64>,
    front_seq: u64,
}

impl ConversationLog {
    /// Records a timeline row: a user or assistant message is added, or replaces the entry of
    /// the same id (assistant text grows snapshot by snapshot). Other rows are not kept.
    pub fn record(&mut self, item: &TimelineItem) {
        let (role, text) = match &item.body {
            ItemBody::UserMessage { text, .. } => (Role::User, text),
            ItemBody::AssistantMessage { text, .. } => (Role::Assistant, text),
            _ => return,
        };
        if text.trim().is_empty() {
            return;
        }
        let text = tail(text, LOG_BYTES).to_string();
        let at = self
            .seq_of
            .get(&item.id)
            .and_then(|seq| usize::try_from(seq - self.front_seq).ok());
        if let Some(entry) = at.and_then(|i| self.entries.get_mut(i)) {
            self.bytes = self.bytes - entry.text.len() + text.len();
            entry.text = text;
            entry.role = role;
        } else {
            self.bytes += text.len();
            let seq = self.front_seq + self.entries.len() as u64;
            self.seq_of.insert(item.id.clone(), seq);
            self.entries.push_back(Entry {
                id: item.id.clone(),
                role,
                text,
            });
        }
        while self.bytes > LOG_BYTES && self.entries.len() > 1 {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.text.len();
                self.seq_of.remove(&old.id);
                self.front_seq += 1;
            }
        }
    }

    /// How many entries the log holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The context for a new conversation: the logged exchanges, oldest first, inside the
    /// envelope; `None` when nothing was exchanged.
    pub fn context(&self) -> Option<String> {
        if self.entries.is_empty() {
            return None;
        }
        let mut body = String::with_capacity(self.bytes + 64 * self.entries.len());
        for entry in &self.entries {
            let who = match entry.role {
                Role::User => "User",
                Role::Assistant => "Assistant",
            };
            body.push_str(&format!("[{who}]\n{}\n\n", entry.text.trim_end()));
        }
        Some(wrap(body.trim_end()))
    }
}

/// `conversation` inside the envelope, with a line that tells the model what it is.
pub fn wrap(conversation: &str) -> String {
    format!(
        "{OPEN}\nThe agent's process stopped and its earlier conversation with the user could \
         not be restored. This is that conversation as the user saw it (the newest part, \
         oldest first), for context only; reply to the message after this block.\n\n\
         {conversation}\n{CLOSE}\n\n"
    )
}

/// `text` without a leading envelope (a replayed first prompt of a carried-over
/// conversation); unchanged otherwise.
pub fn strip(text: &str) -> &str {
    if !text.starts_with(OPEN) {
        return text;
    }
    match text.find(CLOSE) {
        Some(end) => text[end + CLOSE.len()..].trim_start_matches('\n'),
        None => text,
    }
}

/// The last `max` bytes of `text`, cut at a character boundary.
fn tail(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn user(id: &str, text: &str) -> TimelineItem {
        TimelineItem::new(
            id,
            ItemBody::UserMessage {
                text: text.into(),
                message_id: None,
                client_message_id: None,
            },
        )
    }

    fn assistant(id: &str, text: &str) -> TimelineItem {
        TimelineItem::new(
            id,
            ItemBody::AssistantMessage {
                text: text.into(),
                message_id: None,
            },
        )
    }

    #[test]
    fn the_context_holds_the_exchange_in_order_with_the_newest_snapshot() {
        let mut log = ConversationLog::default();
        assert_eq!(log.context(), None);
        log.record(&user("u1", "remember PELICAN"));
        log.record(&assistant("a1", "I will rem"));
        log.record(&assistant("a1", "I will remember it."));
        log.record(&TimelineItem::new(
            "r1",
            ItemBody::Reasoning {
                text: "thinking".into(),
            },
        ));
        let context = log.context().expect("context");
        assert_eq!(log.len(), 2);
        assert!(context.starts_with(OPEN), "{context}");
        let pelican = context.find("[User]\nremember PELICAN").expect("user");
        let reply = context
            .find("[Assistant]\nI will remember it.")
            .expect("reply");
        assert!(pelican < reply);
        assert!(!context.contains("I will rem\n"));
        assert!(!context.contains("thinking"));
    }

    #[test]
    fn the_log_keeps_the_newest_text_within_its_bound() {
        let mut log = ConversationLog::default();
        for i in 0..100 {
            log.record(&user(
                &format!("u{i}"),
                &format!("{i}:{}", "x".repeat(1000)),
            ));
        }
        assert!(log.bytes <= LOG_BYTES);
        let context = log.context().expect("context");
        assert!(context.contains("99:"));
        assert!(!context.contains("\n0:"));
        // One entry longer than the bound keeps its end.
        let mut log = ConversationLog::default();
        log.record(&assistant("a", &format!("{}END", "é".repeat(LOG_BYTES))));
        assert!(log.bytes <= LOG_BYTES);
        assert!(log.context().expect("context").contains("END"));
    }

    #[test]
    fn snapshots_find_their_entry_after_older_ones_were_dropped() {
        let mut log = ConversationLog::default();
        for i in 0..40 {
            log.record(&assistant(&format!("a{i}"), &"x".repeat(1000)));
        }
        // a0..a23 were dropped; a30 grows in place, a0 comes back as the newest.
        log.record(&assistant("a30", "grown"));
        log.record(&user("a0", "back"));
        assert!(log.bytes <= LOG_BYTES);
        let ids: Vec<&str> = log.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.iter().filter(|id| **id == "a30").count(), 1);
        assert_eq!(ids.last(), Some(&"a0"));
        let context = log.context().expect("context");
        assert!(context.contains("[Assistant]\ngrown"), "{context}");
        assert_eq!(log.seq_of.len(), log.entries.len());
    }

    #[test]
    fn strip_removes_only_a_leading_envelope() {
        let prompt = format!("{}what was the word?", wrap("[User]\nremember PELICAN"));
        assert_eq!(strip(&prompt), "what was the word?");
        assert_eq!(strip("plain prompt"), "plain prompt");
        let unclosed = format!("{OPEN} and nothing else");
        assert_eq!(strip(&unclosed), unclosed);
    }
}
