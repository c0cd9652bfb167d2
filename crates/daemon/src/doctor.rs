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
    let dir = plugin::plugin_dir(args.plugin_dir);
    let (manifest, entries) = plugin::load(dir.as_deref())?;
    let plugin_dir = match &dir {
        Some(d) => d.clone(),
        None => std::env::current_dir()?,
    };
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
        println!("{}", crate::doctor_json::render(&findings)?);
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
    for line in format_findings(&findings, style) {
        println!("{line}");
    }
    println!("{}", summary(&findings));
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
    let path_var = match &launch.base_env {
        Some(env) => env.get("PATH").cloned(),
        None => std::env::var("PATH").ok(),
    };
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

fn cli_text(cli: &Option<CliState>) -> String {
    match cli {
        None => "-".into(),
        Some(CliState::BuiltIn) => "built in".into(),
        Some(CliState::Found { path, version }) => match version {
            Ok(v) => format!("{} ({v})", path.display()),
            Err(why) => format!("{} (version unknown: {why})", path.display()),
        },
        // Where it looked is in the availability diagnostic; say it once.
        Some(CliState::NotFound { program, .. }) => format!("`{program}` not found"),
    }
}

/// One aligned line per finding: id, agent, CLI, status, and the diagnostic when there is one.
pub fn format_findings(findings: &[Finding], style: Style) -> Vec<String> {
    let cells: Vec<[String; 3]> = findings
        .iter()
        .map(|f| [f.id.clone(), format!("agent {}", f.agent), cli_text(&f.cli)])
        .collect();
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1, w2) = (width(0), width(1), width(2));
    findings
        .iter()
        .zip(&cells)
        .map(|(f, c)| {
            let (status, diagnostic) = match &f.availability {
                None => (
                    style.red("unknown agent"),
                    Some(format!(
                        "this build of agent-bridge has no agent `{}`; fix plugin.json or update agent-bridge",
                        f.agent
                    )),
                ),
                Some(a) => {
                    let word = status_word(a.status);
                    let painted = match a.status {
                        AvailabilityStatus::Available => style.green(word),
                        AvailabilityStatus::Missing => style.yellow(word),
                        _ => style.red(word),
                    };
                    (painted, a.diagnostic.clone())
                }
            };
            let mut line = format!(
                "{}  {}  cli {}  {status}",
                pad(&style.bold(&c[0]), &c[0], w0),
                pad(&c[1], &c[1], w1),
                pad(&c[2], &c[2], w2),
            );
            if let Some(d) = diagnostic.filter(|d| !d.trim().is_empty()) {
                line.push_str(&format!(" — {}", d.trim()));
            }
            line
        })
        .collect()
}

/// Pads `shown` (possibly colored) to `width` columns of its plain text `plain`.
fn pad(shown: &str, plain: &str, width: usize) -> String {
    let fill = width.saturating_sub(plain.chars().count());
    format!("{shown}{}", " ".repeat(fill))
}

/// "2 providers: 1 available, 1 missing".
pub fn summary(findings: &[Finding]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for f in findings {
        let word = f
            .availability
            .as_ref()
            .map(|a| status_word(a.status))
            .unwrap_or("unknown agent");
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => counts.push((word, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
    let n = findings.len();
    format!(
        "{n} provider{}: {}",
        if n == 1 { "" } else { "s" },
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn finding(id: &str, cli: Option<CliState>, a: Option<ProviderAvailability>) -> Finding {
        Finding {
            id: id.into(),
            label: id.to_uppercase(),
            agent: id.into(),
            cli,
            availability: a,
        }
    }

    #[test]
    fn lines_are_aligned_and_carry_the_diagnostic() {
        let findings = vec![
            finding(
                "demo",
                Some(CliState::BuiltIn),
                Some(ProviderAvailability::available()),
            ),
            finding(
                "claudex",
                Some(CliState::NotFound {
                    program: "claude".into(),
                    searched: "/usr/bin".into(),
                }),
                Some(ProviderAvailability::with(
                    AvailabilityStatus::Missing,
                    "install Claude Code",
                )),
            ),
        ];
        let lines = format_findings(&findings, Style::plain());
        assert_eq!(
            lines,
            vec![
                "demo     agent demo     cli built in            available",
                "claudex  agent claudex  cli `claude` not found  missing — install Claude Code",
            ]
        );
        assert_eq!(summary(&findings), "2 providers: 1 available, 1 missing");
        assert!(!findings.iter().any(Finding::is_problem));
    }

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

    #[test]
    fn broken_and_unknown_providers_are_problems() {
        let broken = finding(
            "x",
            Some(CliState::Found {
                path: "/bin/x".into(),
                version: Ok("x 0.1".into()),
            }),
            Some(ProviderAvailability::with(
                AvailabilityStatus::Incompatible,
                "needs x >= 1.0",
            )),
        );
        assert!(broken.is_problem());
        let line = &format_findings(std::slice::from_ref(&broken), Style::plain())[0];
        assert_eq!(
            line,
            "x  agent x  cli /bin/x (x 0.1)  incompatible — needs x >= 1.0"
        );
        let unknown = finding("y", None, None);
        assert!(unknown.is_problem());
        assert!(format_findings(&[unknown], Style::plain())[0].contains("unknown agent"));
    }
}
