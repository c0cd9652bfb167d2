//! `agent-bridge doctor`: one line per provider of plugin.json — its agent, whether its CLI is
//! found (and where, and which version), its availability and what to do about it.

use crate::plugin;
use crate::try_cmd::Style;
use agent_bridge_core::login;
use agent_bridge_core::probe;
use agent_bridge_core::registry::ProviderEntry;
use agent_bridge_core::server::AVAILABILITY_TIMEOUT;
use agent_bridge_core::supervisor::resolve_program;
use agent_bridge_core::{CliSpec, ProviderContext};
use agent_bridge_protocol::{AvailabilityStatus, ProviderAvailability, ProviderCatalogOptions};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// How long `<cli> --version` may take (a Node CLI on a busy machine takes seconds).
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Args)]
#[command(after_help = "\
Exit status: 0 when every provider is available or its CLI is simply not installed \
(missing: install it to use that provider). 1 when a provider is unrunnable or incompatible \
(installed but broken: wrong version, not logged in, cannot start), when plugin.json names an \
agent this build does not carry, or when plugin.json cannot be read.")]
pub struct DoctorArgs {
    /// Folder holding plugin.json (default: as `serve` finds it).
    #[arg(long)]
    pub plugin_dir: Option<PathBuf>,
    /// Print a JSON array for scripts, one object per provider: id, label, agent, status,
    /// version, cli, diagnostic (same exit status).
    #[arg(long)]
    pub json: bool,
}

/// What doctor found about a provider's CLI.
#[derive(Debug, Clone, PartialEq)]
pub enum CliState {
    /// The agent runs inside the bridge (no CLI).
    BuiltIn,
    Found {
        path: PathBuf,
        /// The first line `version_args` printed, or why there is none.
        version: Result<String, String>,
    },
    NotFound {
        program: String,
        searched: String,
    },
}

/// One provider's findings.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub id: String,
    pub label: String,
    pub agent: String,
    /// `None` when this build does not carry the agent.
    pub cli: Option<CliState>,
    pub availability: Option<ProviderAvailability>,
}

impl Finding {
    /// True when this provider makes doctor exit non-zero.
    pub fn is_problem(&self) -> bool {
        match &self.availability {
            None => true,
            Some(a) => matches!(
                a.status,
                AvailabilityStatus::Unrunnable | AvailabilityStatus::Incompatible
            ),
        }
    }
}

pub fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    Ok(check(args).unwrap_or_else(|e| {
        eprintln!("agent-bridge doctor: {e:#}");
        ExitCode::from(1)
    }))
}

fn check(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let loaded = plugin::Loaded::find(args.plugin_dir)?;
    let plugin_dir = loaded.folder()?;
    let plugin::Loaded {
        dir,
        manifest,
        providers: entries,
        spares: _spares,
    } = loaded;
    let findings = runtime.block_on(async {
        let mut tasks = Vec::new();
        for p in &manifest.providers {
            let entry = entries.iter().find(|e| e.descriptor.id == p.id).cloned();
            let (id, label, agent) = (p.id.clone(), p.label.clone(), p.agent.clone());
            let dir = plugin_dir.clone();
            tasks.push(tokio::spawn(async move {
                match entry {
                    Some(entry) => examine(entry, &dir).await,
                    None => Finding {
                        id,
                        label,
                        agent,
                        cli: None,
                        availability: None,
                    },
                }
            }));
        }
        let mut findings = Vec::new();
        for t in tasks {
            findings.push(t.await?);
        }
        anyhow::Ok(findings)
    })?;
    let problem = findings.iter().any(Finding::is_problem);
    let code = if problem {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if args.json {
        println!(
            "{}",
            crate::doctor_json::render(&findings, &agent_bridge_core::spares::running())?
        );
        return Ok(code);
    }
    let source = match &dir {
        Some(d) => d.join("plugin.json").display().to_string(),
        None => "the plugin.json built into this binary".into(),
    };
    let style = Style::detect();
    println!(
        "{}",
        style.dim(&format!(
            "agent-bridge {} · plugin {} · {source}",
            env!("CARGO_PKG_VERSION"),
            manifest.id
        ))
    );
    for line in crate::doctor_text::format_findings(&findings, style) {
        println!("{line}");
    }
    for spare in agent_bridge_core::spares::running() {
        println!(
            "{}",
            style.dim(&format!(
                "idle spare of {}: pid {}, {} MB (bridge pid {})",
                spare.record.provider,
                spare.record.pid,
                spare.rss_bytes / 1_000_000,
                spare.bridge_pid
            ))
        );
    }
    println!("{}", crate::doctor_text::summary(&findings));
    Ok(code)
}

async fn examine(entry: Arc<ProviderEntry>, plugin_dir: &Path) -> Finding {
    let ctx = ProviderContext {
        launch: entry.command.clone(),
        data_dir: Some(plugin_dir.join(".data")),
        plugin_dir: Some(plugin_dir.to_path_buf()),
    };
    let cli = match entry.provider.cli() {
        None => CliState::BuiltIn,
        Some(spec) => find_cli(&ctx, spec).await,
    };
    let options = ProviderCatalogOptions::default();
    let mut availability = bounded_availability(&entry, &ctx, &options).await;
    // A login check that did not finish in time goes on in the background: ask again.
    for _ in 0..UNCHECKED_RETRIES {
        if !login::is_unchecked(&availability) {
            break;
        }
        availability = bounded_availability(&entry, &ctx, &options).await;
    }
    Finding {
        id: entry.descriptor.id.clone(),
        label: entry.descriptor.label.clone(),
        agent: entry.agent.clone(),
        cli: Some(cli),
        availability: Some(availability),
    }
}

/// How many more times a provider whose login check could not tell yet is asked.
const UNCHECKED_RETRIES: usize = 3;

async fn bounded_availability(
    entry: &ProviderEntry,
    ctx: &ProviderContext,
    options: &ProviderCatalogOptions,
) -> ProviderAvailability {
    match tokio::time::timeout(
        AVAILABILITY_TIMEOUT,
        entry.provider.availability(ctx, options),
    )
    .await
    {
        Ok(a) => a,
        Err(_) => ProviderAvailability::with(
            AvailabilityStatus::Unrunnable,
            format!(
                "the availability probe did not finish within {} s",
                AVAILABILITY_TIMEOUT.as_secs()
            ),
        ),
    }
}

/// Resolves the CLI the way a session would launch it and asks for its version.
async fn find_cli(ctx: &ProviderContext, spec: CliSpec) -> CliState {
    let launch = ctx.launch.spec(&spec.program, spec.version_args.clone());
    let path_var = launch.var("PATH");
    let path = match resolve_program(&launch.program, path_var.as_deref()) {
        Ok(path) => path,
        Err(_) => {
            return CliState::NotFound {
                program: launch.program.clone(),
                searched: path_var.unwrap_or_default(),
            }
        }
    };
    if spec.version_args.is_empty() {
        let version = Err("it has no version flag".to_string());
        return CliState::Found { path, version };
    }
    let version = match probe::run_probe(&launch, VERSION_TIMEOUT).await {
        Err(probe::ProbeError::Timeout { .. }) => Err(format!(
            "`{}` did not answer within {} s",
            launch.args.join(" "),
            VERSION_TIMEOUT.as_secs()
        )),
        Err(e) => Err(format!("cannot run it: {e}")),
        Ok(out) => match (out.success, out.first_line()) {
            (true, Some(line)) => Ok(line.chars().take(80).collect()),
            (true, None) => Err("printed no version".into()),
            (false, line) => Err(format!(
                "version check exited with {}{}",
                out.status,
                line.map(|l| format!(": {l}")).unwrap_or_default()
            )),
        },
    };
    CliState::Found { path, version }
}

pub fn status_word(status: AvailabilityStatus) -> &'static str {
    match status {
        AvailabilityStatus::Available => "available",
        AvailabilityStatus::Missing => "missing",
        AvailabilityStatus::Unrunnable => "unrunnable",
        AvailabilityStatus::Incompatible => "incompatible",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn cli(program: &'static str, version_args: &'static [&'static str]) -> CliSpec {
        CliSpec::new(program, version_args)
    }

    #[tokio::test]
    async fn finds_the_cli_and_its_version() {
        let ctx = ProviderContext::default();
        match find_cli(&ctx, cli("sh", &["-c", "echo; echo tool 1.2.3"])).await {
            CliState::Found { path, version } => {
                assert!(path.is_absolute(), "{}", path.display());
                assert_eq!(version, Ok("tool 1.2.3".to_string()));
            }
            other => panic!("unexpected {other:?}"),
        }
        match find_cli(&ctx, cli("sh", &["-c", "echo bad >&2; exit 3"])).await {
            CliState::Found { version, .. } => {
                let why = version.expect_err("a failing version check");
                assert!(why.contains("bad"), "{why}");
            }
            other => panic!("unexpected {other:?}"),
        }
        match find_cli(&ctx, cli("agent-bridge-no-such-cli", &["--version"])).await {
            CliState::NotFound { program, .. } => assert_eq!(program, "agent-bridge-no-such-cli"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[tokio::test]
    async fn the_launch_override_replaces_the_program() {
        let mut ctx = ProviderContext::default();
        ctx.launch.command = Some("sh".into());
        ctx.launch.args = vec!["-c".into(), "echo via override".into()];
        // `sh -c 'echo via override' --version`: the flag lands in `$0`.
        match find_cli(&ctx, cli("agent-bridge-no-such-cli", &["--version"])).await {
            CliState::Found { version, .. } => assert_eq!(version, Ok("via override".into())),
            other => panic!("unexpected {other:?}"),
        }
        // An agent without a version flag is not run bare (it would start and wait).
        match find_cli(&ctx, cli("agent-bridge-no-such-cli", &[])).await {
            CliState::Found { version, .. } => {
                assert_eq!(version, Err("it has no version flag".into()))
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
