//! Protocol-level conveniences on [`BridgeHost`]: open a session, run a turn, wait for the
//! answer of a request. They work for any provider.

use crate::event::Event;
use crate::host::BridgeHost;
use crate::input;
use serde_json::Value;
use std::time::Duration;

/// The kinds of event that answer a request (`session.opened` does not: it is followed by
/// `session.ready`).
const ANSWERS: [&str; 6] = [
    "catalog",
    "sessions",
    "request.completed",
    "request.failed",
    "session.ready",
    "session.can_stop_runtime",
];

/// What a finished turn looked like.
#[derive(Debug, Clone)]
pub struct TurnRun {
    pub client_message_id: String,
    pub turn_id: String,
    /// The terminal `session.turn` event.
    pub end: Event,
    /// Every event of the session from the prompt result to the terminal state, inclusive.
    pub events: Vec<Event>,
}

impl TurnRun {
    /// `completed`, `failed` or `canceled`.
    pub fn state(&self) -> &str {
        self.end.turn_state().unwrap_or("")
    }

    /// The `status` of every snapshot of the timeline item `item_id` during the turn, in order.
    pub fn item_statuses(&self, item_id: &str) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e.item_id() == Some(item_id))
            .filter_map(|e| e.at("/item/status").and_then(Value::as_str))
            .map(str::to_string)
            .collect()
    }
}

impl BridgeHost {
    /// Waits for the answer to `request_id` (catalog, sessions, request.completed/failed,
    /// session.ready, session.can_stop_runtime).
    pub async fn wait_answer(&self, request_id: &str, timeout: Duration) -> anyhow::Result<Event> {
        self.wait_event(
            |e| e.request_id() == Some(request_id) && ANSWERS.contains(&e.kind()),
            timeout,
        )
        .await
        .map_err(|e| e.context(format!("no answer to request `{request_id}`")))
    }

    /// Sends a `session.open` input and waits for `session.ready`; returns the session's events
    /// from `session.opened` to `session.ready`. Fails on refusal or `request.failed`.
    pub async fn open_session(
        &self,
        connection_id: &str,
        open_input: Value,
    ) -> anyhow::Result<Vec<Event>> {
        let rid = open_input
            .get("requestId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let sid = open_input
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        self.send(connection_id, open_input)
            .await
            .map_err(|e| anyhow::anyhow!("session.open refused: {e}"))?;
        // Slow agents (Node CLIs, OpenCode) may take longer to open than the default 10 s.
        let limit = self.request_timeout.max(Duration::from_secs(10));
        let answer = self.wait_answer(&rid, limit).await?;
        anyhow::ensure!(
            answer.is("session.ready"),
            "session.open `{rid}` failed: {answer}"
        );
        Ok(self
            .events()
            .into_iter()
            .skip_while(|e| !e.is_for("session.opened", &sid))
            .take_while(|e| e.seq <= answer.seq)
            .filter(|e| e.session_id() == Some(sid.as_str()))
            .collect())
    }

    /// Sends a text prompt (`delivery: "auto"`) with a fresh clientMessageId, returned.
    pub async fn prompt(
        &self,
        connection_id: &str,
        session_id: &str,
        text: &str,
    ) -> anyhow::Result<String> {
        let cmid = self.unique("msg");
        self.send(connection_id, input::message(session_id, &cmid, text))
            .await
            .map_err(|e| anyhow::anyhow!("prompt refused: {e}"))?;
        Ok(cmid)
    }

    /// Waits for the `session.prompt_result` of `client_message_id`; returns its `result`.
    pub async fn prompt_result(
        &self,
        session_id: &str,
        client_message_id: &str,
        timeout: Duration,
    ) -> anyhow::Result<Value> {
        let ev = self
            .wait_event(
                |e| {
                    e.is_for("session.prompt_result", session_id)
                        && e.at("/clientMessageId").and_then(Value::as_str)
                            == Some(client_message_id)
                },
                timeout,
            )
            .await
            .map_err(|e| e.context(format!("no prompt_result for `{client_message_id}`")))?;
        Ok(ev.at("/result").cloned().unwrap_or(Value::Null))
    }

    /// Waits for the terminal `session.turn` of `turn_id`.
    pub async fn wait_turn_end(
        &self,
        session_id: &str,
        turn_id: &str,
        timeout: Duration,
    ) -> anyhow::Result<Event> {
        self.wait_event(
            |e| {
                e.is_for("session.turn", session_id)
                    && e.turn_id() == Some(turn_id)
                    && e.turn_state().is_some_and(|s| s != "started")
            },
            timeout,
        )
        .await
        .map_err(|e| e.context(format!("turn `{turn_id}` did not end")))
    }

    /// Sends `text`, expects a `{type: "turn"}` result and waits for the turn to end.
    pub async fn run_turn(
        &self,
        connection_id: &str,
        session_id: &str,
        text: &str,
        timeout: Duration,
    ) -> anyhow::Result<TurnRun> {
        let cmid = self.prompt(connection_id, session_id, text).await?;
        let result = self.prompt_result(session_id, &cmid, timeout).await?;
        let turn_id = match (
            result.get("type").and_then(Value::as_str),
            result.get("turnId").and_then(Value::as_str),
        ) {
            (Some("turn"), Some(turn)) => turn.to_string(),
            _ => anyhow::bail!("prompt `{text}` did not start a turn: {result}"),
        };
        let end = self.wait_turn_end(session_id, &turn_id, timeout).await?;
        let events = self
            .session_events(session_id)
            .into_iter()
            .skip_while(|e| {
                !(e.is("session.prompt_result")
                    && e.at("/clientMessageId").and_then(Value::as_str) == Some(&cmid))
            })
            .take_while(|e| e.seq <= end.seq)
            .collect();
        Ok(TurnRun {
            client_message_id: cmid,
            turn_id,
            end,
            events,
        })
    }

    /// Every event of one session so far.
    pub fn session_events(&self, session_id: &str) -> Vec<Event> {
        self.state()
            .events
            .iter()
            .filter(|e| e.session_id() == Some(session_id))
            .cloned()
            .collect()
    }

    /// The session's timeline as Paseo would hold it: the latest snapshot of every item id, in
    /// the order the ids first appeared.
    pub fn timeline(&self, session_id: &str) -> Vec<Value> {
        let mut order: Vec<String> = Vec::new();
        let mut latest: std::collections::HashMap<String, Value> = std::collections::HashMap::new();
        for e in self.session_events(session_id) {
            if let (Some(id), Some(item)) = (e.item_id(), e.item()) {
                if !latest.contains_key(id) {
                    order.push(id.to_string());
                }
                latest.insert(id.to_string(), item.clone());
            }
        }
        order
            .into_iter()
            .filter_map(|id| latest.remove(&id))
            .collect()
    }
}
