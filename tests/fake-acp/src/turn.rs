//! A prompt's turn: the scenario's steps, one after the other.

use crate::agent::{Agent, NOT_FOUND};
use crate::scenario::{Permission, Step};
use crate::Out;
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use tokio_util::sync::CancellationToken;

/// How a run of steps ended.
enum Flow {
    Done,
    Cancelled,
    Failed(i64, String),
}

struct Ctx<'a> {
    agent: &'a Agent,
    sid: String,
    text: String,
    cancel: CancellationToken,
}

/// Runs `session/prompt`; `None` when the scenario never answers it.
pub async fn prompt(agent: &Agent, params: &Value) -> Option<Result<Value, (i64, String)>> {
    let sid = params
        .get("sessionId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let blocks = params
        .get("prompt")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let text: String = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let cancel = CancellationToken::new();
    let fresh = cancel.clone();
    // A revert made through the HTTP server since the last prompt drops its turns now.
    let reverted = agent.store_mut().load(&sid).and_then(|r| r.revert);
    let message_id = agent.with_session(&sid, |live| {
        live.cancel = fresh;
        if let Some(to) = &reverted {
            live.record.cut_at(to);
        }
        live.record.revert = None;
        if live.record.title.is_none() {
            live.record.title = Some(text.chars().take(40).collect());
        }
        live.record.messages_made += 1;
        format!("msg_{:03}", live.record.messages_made)
    });
    let Some(message_id) = message_id else {
        return Some(Err((NOT_FOUND, format!("Session not found: {sid}"))));
    };
    for block in &blocks {
        agent.remember(
            &sid,
            &json!({"sessionUpdate": "user_message_chunk", "content": block, "messageId": message_id}),
        );
    }
    let turn = agent
        .scenario
        .turn_for(&text, |i| agent.store_mut().first_time(i));
    let ctx = Ctx {
        agent,
        sid,
        text,
        cancel,
    };
    let flow = run(&ctx, &turn.steps).await?;
    let stop = match flow {
        Flow::Cancelled => "cancelled".to_string(),
        Flow::Done => turn.stop_reason.unwrap_or_else(|| "end_turn".into()),
        Flow::Failed(code, message) => return Some(Err((code, message))),
    };
    Some(Ok(json!({"stopReason": stop})))
}

/// Steps outside a session (`afterInitialize`): raw lines, stderr, delays, exits.
pub async fn run_plain(agent: &Agent, steps: &[Step]) {
    let ctx = Ctx {
        agent,
        sid: String::new(),
        text: String::new(),
        cancel: CancellationToken::new(),
    };
    let _ = run(&ctx, steps).await;
}

/// Runs the steps; `None`: the turn hangs for good.
fn run<'a>(
    ctx: &'a Ctx<'a>,
    steps: &'a [Step],
) -> Pin<Box<dyn Future<Output = Option<Flow>> + Send + 'a>> {
    Box::pin(async move {
        for step in steps {
            if ctx.cancel.is_cancelled() {
                return Some(Flow::Cancelled);
            }
            if let Some(update) = &step.update {
                ctx.agent.update(&ctx.sid, update.clone()).await;
            } else if step.echo == Some(true) {
                let update = json!({"sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": format!("echo: {}", ctx.text)}});
                ctx.agent.update(&ctx.sid, update).await;
            } else if let Some(permission) = &step.permission {
                match ask(ctx, permission).await {
                    Some(steps) => match run(ctx, steps).await? {
                        Flow::Done => {}
                        other => return Some(other),
                    },
                    None => return Some(Flow::Cancelled),
                }
            } else if step.wait_cancel == Some(true) {
                ctx.cancel.cancelled().await;
                return Some(Flow::Cancelled);
            } else if step.hang == Some(true) {
                return std::future::pending().await;
            } else if let Some(ms) = step.delay_ms {
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            } else if let Some(code) = step.exit {
                ctx.agent.send(Out::Exit(code)).await;
                return std::future::pending().await;
            } else if let Some(raw) = &step.raw {
                ctx.agent.send(Out::Line(raw.clone())).await;
            } else if let Some(line) = &step.stderr {
                eprintln!("{line}");
            } else if let Some(request) = &step.request {
                let method = request.get("method").and_then(Value::as_str).unwrap_or("");
                let params = request.get("params").cloned().unwrap_or(Value::Null);
                ctx.agent.ask(method, params).await;
            } else if let Some(e) = &step.fail {
                return Some(Flow::Failed(e.code, e.message.clone()));
            }
        }
        Some(Flow::Done)
    })
}

/// Asks the client; the steps of the chosen branch, or `None` when the answer is `cancelled`.
async fn ask<'a>(ctx: &Ctx<'_>, permission: &'a Permission) -> Option<&'a [Step]> {
    let mode = ctx
        .agent
        .with_session(&ctx.sid, |live| live.mode.clone())
        .flatten();
    if permission.unless_mode.is_some() && permission.unless_mode == mode {
        return Some(&permission.on_allow);
    }
    let options = permission.options();
    let answer = ctx
        .agent
        .ask(
            "session/request_permission",
            json!({"sessionId": ctx.sid, "toolCall": permission.tool_call, "options": options}),
        )
        .await;
    let outcome = answer.get("outcome");
    if outcome
        .and_then(|o| o.get("outcome"))
        .and_then(Value::as_str)
        != Some("selected")
    {
        return None;
    }
    let chosen = outcome
        .and_then(|o| o.get("optionId"))
        .and_then(Value::as_str);
    let kind = options
        .iter()
        .find(|o| o.get("optionId").and_then(Value::as_str) == chosen)
        .and_then(|o| o.get("kind").and_then(Value::as_str))
        .unwrap_or("reject_once");
    if kind.starts_with("allow") {
        Some(&permission.on_allow)
    } else {
        Some(&permission.on_reject)
    }
}
