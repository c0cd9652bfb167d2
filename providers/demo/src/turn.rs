//! One demo turn, run as a task: optional reasoning, an optional real shell tool (with a
//! permission request unless the mode is unattended), and a streamed reply.

use crate::catalog::DemoConfig;
use crate::script::{Script, SLOW_WORDS, SLOW_WORD_MS};
use crate::shell::run_shell;
use agent_bridge_core::{AgentEvent, ProcessScope, SessionSink, TurnOutcome};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    ItemBody, PermissionBehavior, PermissionKind, ProviderError, ProviderPermissionAction,
    ProviderPermissionRequest, ProviderPermissionResponse, ProviderUsage, TimelineItem, ToolCall,
    ToolCallDetail,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

pub type PendingPermissions =
    Arc<Mutex<HashMap<String, oneshot::Sender<ProviderPermissionResponse>>>>;

/// Everything a turn task needs.
pub struct TurnContext {
    pub turn_id: String,
    pub text: String,
    pub config: DemoConfig,
    pub cwd: String,
    pub base_env: Option<BTreeMap<String, String>>,
    pub env: BTreeMap<String, String>,
    pub sink: SessionSink,
    pub cancel: CancellationToken,
    pub steer: mpsc::Receiver<String>,
    pub permissions: PendingPermissions,
    /// Every item the turn produced, for the transcript.
    pub record: Arc<Mutex<Vec<TimelineItem>>>,
    pub running_tools: Arc<Mutex<usize>>,
    pub scope: ProcessScope,
}

enum Stop {
    Canceled,
    Closed,
}

impl TurnContext {
    async fn item(&self, item: TimelineItem) -> Result<(), Stop> {
        if let Ok(mut r) = self.record.lock() {
            match r.iter_mut().find(|i| i.id == item.id) {
                Some(slot) => *slot = item.clone(),
                None => r.push(item.clone()),
            }
        }
        if self.sink.item(item).await {
            Ok(())
        } else {
            Err(Stop::Closed)
        }
    }

    async fn pause(&self, ms: u64) -> Result<(), Stop> {
        tokio::select! {
            _ = self.cancel.cancelled() => Err(Stop::Canceled),
            _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
        }
    }
}

/// Runs the turn to its end and reports the outcome.
pub async fn run_turn(mut ctx: TurnContext, script: Script) {
    let outcome = match body(&mut ctx, &script).await {
        Ok(outcome) => outcome,
        Err(Stop::Canceled) => TurnOutcome::Canceled,
        Err(Stop::Closed) => return,
    };
    let words = ctx.text.split_whitespace().count() as u64;
    let usage = ProviderUsage {
        input_tokens: Some(words * 2 + 10),
        cached_input_tokens: Some(0),
        output_tokens: Some(words + 8),
        total_cost_usd: Some(0.0),
        context_window_max_tokens: Some(if ctx.config.model == "demo-smart" {
            200_000
        } else {
            32_000
        }),
        context_window_used_tokens: Some(words * 3 + 18),
    };
    ctx.sink
        .send(AgentEvent::Usage {
            turn_id: Some(ctx.turn_id.clone()),
            usage,
        })
        .await;
    ctx.sink.turn_ended(ctx.turn_id.clone(), outcome).await;
}

async fn body(ctx: &mut TurnContext, script: &Script) -> Result<TurnOutcome, Stop> {
    let turn = ctx.turn_id.clone();
    if let Some(n) = script.bench {
        return bench(ctx, n).await;
    }
    if ctx.config.verbose || ctx.config.thinking == "on" {
        let text = format!(
            "The user wrote {} words; answering deterministically.",
            ctx.text.split_whitespace().count()
        );
        ctx.item(TimelineItem::new(
            format!("reasoning:{turn}"),
            ItemBody::Reasoning { text },
        ))
        .await?;
    }
    if script.crash {
        ctx.pause(50).await?;
        let error = ProviderError::new("the demo runtime crashed (CRASH was requested)")
            .with_code(ErrorCode::RuntimeExited);
        ctx.sink.send(AgentEvent::RuntimeFailed(error)).await;
        return Err(Stop::Closed);
    }
    let mut tool_summary = None;
    if let Some(command) = &script.command {
        match tool(ctx, command).await? {
            ToolResult::Ran { exit_code, output } => {
                tool_summary = Some(format!(
                    "Command exited with code {exit_code}: {}",
                    output.trim_end()
                ))
            }
            ToolResult::Denied { interrupt: true } => return Ok(TurnOutcome::Canceled),
            ToolResult::Denied { interrupt: false } => {
                tool_summary = Some("The command was denied.".into())
            }
        }
    }
    if script.fail {
        return Ok(TurnOutcome::Failed(
            ProviderError::new("the demo turn failed (FAIL was requested)")
                .with_code(ErrorCode::DemoFailure),
        ));
    }
    let pirate = ctx.config.style == "pirate";
    let mut reply = String::from(if pirate {
        "Arr! Hello from demo!"
    } else {
        "Hello from demo!"
    });
    reply.push_str(&format!(" You said: {}", ctx.text));
    if let Some(s) = tool_summary {
        reply.push_str(&format!("\n{s}"));
    }
    stream_reply(ctx, &reply, script.slow).await?;
    Ok(TurnOutcome::Completed)
}

async fn stream_reply(ctx: &mut TurnContext, reply: &str, slow: bool) -> Result<(), Stop> {
    let id = format!("assistant:{}", ctx.turn_id);
    let mut text = String::new();
    let words: Vec<String> = if slow {
        (1..=SLOW_WORDS).map(|i| format!("word{i}")).collect()
    } else {
        reply.split_inclusive(' ').map(str::to_string).collect()
    };
    if slow {
        text.push_str(reply);
        text.push('\n');
    }
    for word in words {
        text.push_str(&word);
        if slow {
            text.push(' ');
        }
        while let Ok(steer) = ctx.steer.try_recv() {
            text.push_str(&format!("\n[steer] {steer}\n"));
        }
        ctx.item(TimelineItem::new(
            &id,
            ItemBody::AssistantMessage {
                text: text.clone(),
                message_id: None,
            },
        ))
        .await?;
        ctx.pause(if slow { SLOW_WORD_MS } else { 2 }).await?;
    }
    // A steer that arrives while the last word is out still lands in the reply.
    let mut late = false;
    while let Ok(steer) = ctx.steer.try_recv() {
        text.push_str(&format!("\n[steer] {steer}\n"));
        late = true;
    }
    if late {
        ctx.item(TimelineItem::new(
            &id,
            ItemBody::AssistantMessage {
                text,
                message_id: None,
            },
        ))
        .await?;
    }
    Ok(())
}

async fn bench(ctx: &mut TurnContext, n: u32) -> Result<TurnOutcome, Stop> {
    for i in 0..n {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let item = TimelineItem::new(
            format!("bench:{}:{i}", ctx.turn_id),
            ItemBody::AssistantMessage {
                text: format!("t={nanos}"),
                message_id: None,
            },
        );
        // Not recorded in the transcript: bench items are measurement, not conversation.
        if !ctx.sink.item(item).await {
            return Err(Stop::Closed);
        }
        if ctx.cancel.is_cancelled() {
            return Err(Stop::Canceled);
        }
    }
    Ok(TurnOutcome::Completed)
}

enum ToolResult {
    Ran { exit_code: i64, output: String },
    Denied { interrupt: bool },
}

async fn tool(ctx: &mut TurnContext, command: &str) -> Result<ToolResult, Stop> {
    let call_id = format!("tool:{}:1", ctx.turn_id);
    let detail = ToolCallDetail::Shell {
        command: command.to_string(),
        cwd: Some(ctx.cwd.clone()),
        output: None,
        exit_code: None,
    };
    let mut call = ToolCall::running(&call_id, "shell", detail.clone());
    ctx.item(TimelineItem::new(
        &call_id,
        ItemBody::ToolCall(call.clone()),
    ))
    .await?;
    if !ctx.config.unattended() {
        let response = ask(ctx, command, detail).await?;
        if let ProviderPermissionResponse::Deny {
            message, interrupt, ..
        } = response
        {
            let reason = message.unwrap_or_else(|| "denied by the user".into());
            call.fail(serde_json::json!({ "message": reason }));
            ctx.item(TimelineItem::new(&call_id, ItemBody::ToolCall(call)))
                .await?;
            return Ok(ToolResult::Denied {
                interrupt: interrupt == Some(true),
            });
        }
    }
    if let Ok(mut n) = ctx.running_tools.lock() {
        *n += 1;
    }
    let ran = run_shell(
        command,
        &ctx.cwd,
        ctx.base_env.clone(),
        &ctx.env,
        &ctx.cancel,
        &ctx.scope,
    )
    .await;
    if let Ok(mut n) = ctx.running_tools.lock() {
        *n = n.saturating_sub(1);
    }
    let ran = match ran {
        Ok(Some(ran)) => ran,
        Ok(None) => {
            call.cancel();
            ctx.item(TimelineItem::new(&call_id, ItemBody::ToolCall(call)))
                .await?;
            return Err(Stop::Canceled);
        }
        Err(e) => {
            call.fail(serde_json::json!({ "message": e.to_string() }));
            ctx.item(TimelineItem::new(&call_id, ItemBody::ToolCall(call)))
                .await?;
            return Ok(ToolResult::Ran {
                exit_code: -1,
                output: e.to_string(),
            });
        }
    };
    call.detail = ToolCallDetail::Shell {
        command: command.to_string(),
        cwd: Some(ctx.cwd.clone()),
        output: Some(ran.output.clone()),
        exit_code: Some(Some(ran.exit_code)),
    };
    if ran.exit_code == 0 {
        call.complete();
    } else {
        call.fail(serde_json::json!({ "message": format!("exited with code {}", ran.exit_code) }));
    }
    ctx.item(TimelineItem::new(&call_id, ItemBody::ToolCall(call)))
        .await?;
    Ok(ToolResult::Ran {
        exit_code: ran.exit_code,
        output: ran.output,
    })
}

async fn ask(
    ctx: &mut TurnContext,
    command: &str,
    detail: ToolCallDetail,
) -> Result<ProviderPermissionResponse, Stop> {
    let id = format!("perm:{}:1", ctx.turn_id);
    let (tx, rx) = oneshot::channel();
    if let Ok(mut p) = ctx.permissions.lock() {
        p.insert(id.clone(), tx);
    }
    let request = ProviderPermissionRequest {
        id: id.clone(),
        name: "shell".into(),
        kind: PermissionKind::Tool,
        title: Some(format!("Run `{command}`?")),
        description: Some(format!(
            "The demo agent wants to run a shell command in {}",
            ctx.cwd
        )),
        input: serde_json::json!({ "command": command })
            .as_object()
            .cloned(),
        detail: Some(detail),
        suggestions: None,
        actions: Some(vec![
            ProviderPermissionAction {
                id: "allow".into(),
                label: "Run".into(),
                behavior: PermissionBehavior::Allow,
                variant: Some(agent_bridge_protocol::ActionVariant::Primary),
                intent: None,
            },
            ProviderPermissionAction {
                id: "deny".into(),
                label: "Don't run".into(),
                behavior: PermissionBehavior::Deny,
                variant: Some(agent_bridge_protocol::ActionVariant::Danger),
                intent: None,
            },
        ]),
        metadata: None,
    };
    if !ctx.sink.send(AgentEvent::Permission(request)).await {
        return Err(Stop::Closed);
    }
    let answer = tokio::select! {
        _ = ctx.cancel.cancelled() => Err(Stop::Canceled),
        r = rx => r.map_err(|_| Stop::Canceled),
    };
    if let Ok(mut p) = ctx.permissions.lock() {
        p.remove(&id);
    }
    if answer.is_err() {
        ctx.sink
            .send(AgentEvent::PermissionResolved { permission_id: id })
            .await;
    }
    answer
}
