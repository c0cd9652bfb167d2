//! A replay and a rewind ([`crate::opencode::revert`]): replayed user messages carry revert
//! tokens (made by the agent's own rule, given by the session) where the session can be rewound, and the turns of a pending revert are left out. OpenCode hides
//! a reverted message and every later one from the model but keeps them stored until the
//! next prompt, and its `session/load` replays them meanwhile.

use serde_json::Value;

#[derive(Debug, Default)]
pub struct ReplayRevert {
    /// Replayed user messages carry revert tokens, made from their `messageId` by this rule
    /// (`None`: the session cannot be rewound).
    pub tokens: Option<fn(&str) -> Value>,
    /// The user message a pending revert goes back to: it and what follows are left out.
    cut_at: Option<String>,
    cutting: bool,
}

impl ReplayRevert {
    /// The replay to come leaves out the user message `message_id` and everything after it.
    pub fn cut_at(&mut self, message_id: Option<String>) {
        self.cut_at = message_id;
        self.cutting = false;
    }

    /// A live turn: a replay is over.
    pub fn turn_began(&mut self) {
        self.cut_at = None;
        self.cutting = false;
    }

    /// Whether a replayed update is left out; `user_message` is a user chunk's message id.
    pub fn leaves_out(&mut self, user_message: Option<&str>) -> bool {
        if let (Some(cut), Some(id)) = (&self.cut_at, user_message) {
            if cut == id {
                self.cutting = true;
            }
        }
        self.cutting
    }

    /// The revert token of the replayed user message `message_id`.
    pub fn token(&self, message_id: Option<&str>) -> Option<Value> {
        message_id.zip(self.tokens).map(|(id, token)| token(id))
    }
}
