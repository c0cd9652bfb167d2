//! `agent-bridge doctor`'s text: one aligned line per provider, the `PATH` searched once, and
//! the summary.

use crate::doctor::{status_word, CliState, Finding};
use crate::try_cmd::Style;
use agent_bridge_protocol::AvailabilityStatus;

fn cli_text(cli: &Option<CliState>) -> String {
    match cli {
        None => "-".into(),
        Some(CliState::BuiltIn) => "built in".into(),
        Some(CliState::Found { path, version }) => match version {
            Ok(v) => format!("{} ({v})", path.display()),
            Err(why) => format!("{} (version unknown: {why})", path.display()),
        },
        // Where it looked is said once, after the providers (see `searched_paths`).
        Some(CliState::NotFound { program, .. }) => format!("`{program}` not found"),
    }
}

/// One aligned line per finding: id, agent, CLI, status, and the diagnostic when there is one;
/// then, once, the `PATH` searched for the CLIs not found.
pub fn format_findings(findings: &[Finding], style: Style) -> Vec<String> {
    let mut lines = provider_lines(findings, style);
    lines.extend(searched_paths(findings).into_iter().map(|l| style.dim(&l)));
    lines
}

/// The diagnostic without the `PATH` it names (`searched PATH: …`), said once elsewhere.
fn without_path(diagnostic: &str, cli: &Option<CliState>) -> String {
    match cli {
        Some(CliState::NotFound { searched, .. }) => diagnostic
            .replace(&format!(" (searched PATH: {searched})"), "")
            .replace(&format!("(searched PATH: {searched})"), ""),
        _ => diagnostic.to_string(),
    }
}

/// `PATH searched: …` once per distinct `PATH` of the CLIs not found (a provider whose launch
/// sets its own `PATH` gets a line of its own, naming the providers).
fn searched_paths(findings: &[Finding]) -> Vec<String> {
    let mut paths: Vec<(&str, Vec<&str>)> = Vec::new();
    for f in findings {
        if let Some(CliState::NotFound { searched, .. }) = &f.cli {
            match paths.iter_mut().find(|(p, _)| *p == searched.as_str()) {
                Some((_, ids)) => ids.push(&f.id),
                None => paths.push((searched, vec![&f.id])),
            }
        }
    }
    let several = paths.len() > 1;
    paths
        .into_iter()
        .map(|(path, ids)| {
            let shown = if path.is_empty() { "(empty)" } else { path };
            if several {
                format!("PATH searched for {}: {shown}", ids.join(", "))
            } else {
                format!("PATH searched: {shown}")
            }
        })
        .collect()
}

fn provider_lines(findings: &[Finding], style: Style) -> Vec<String> {
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
                    let diagnostic = a.diagnostic.as_deref().map(|d| without_path(d, &f.cli));
                    (painted, diagnostic)
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
    use agent_bridge_protocol::ProviderAvailability;
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

    fn missing(id: &str, program: &str, path: &str) -> Finding {
        finding(
            id,
            Some(CliState::NotFound {
                program: program.into(),
                searched: path.into(),
            }),
            Some(ProviderAvailability::with(
                AvailabilityStatus::Missing,
                format!("`{program}` was not found (searched PATH: {path}); install {program}"),
            )),
        )
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
                "PATH searched: /usr/bin",
            ]
        );
        assert_eq!(summary(&findings), "2 providers: 1 available, 1 missing");
        assert!(!findings.iter().any(Finding::is_problem));
    }

    #[test]
    fn the_path_is_printed_once_not_on_every_missing_line() {
        let path = "/usr/local/bin:/usr/bin:/bin:/opt/tools/bin";
        let findings = vec![
            missing("claude-bridge", "claude", path),
            missing("codex-bridge", "codex", path),
        ];
        let lines = format_findings(&findings, Style::plain());
        assert_eq!(
            lines,
            vec![
                "claude-bridge  agent claude-bridge  cli `claude` not found  missing — `claude` was not found; install claude",
                "codex-bridge   agent codex-bridge   cli `codex` not found   missing — `codex` was not found; install codex",
                "PATH searched: /usr/local/bin:/usr/bin:/bin:/opt/tools/bin",
            ]
        );
        assert_eq!(lines.join("\n").matches(path).count(), 1);
        // A provider launched with a PATH of its own says which PATH was whose.
        let findings = vec![
            missing("a", "claude", path),
            missing("b", "codex", "/custom/bin"),
            missing("c", "qwen", path),
        ];
        let lines = format_findings(&findings, Style::plain());
        assert_eq!(
            lines[3..],
            [
                "PATH searched for a, c: /usr/local/bin:/usr/bin:/bin:/opt/tools/bin",
                "PATH searched for b: /custom/bin",
            ]
        );
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
