//! A shell command's output as the agent reports it, reduced to what the command printed.
//!
//! ACP agents wrap a finished command's output in their own presentation: claude-agent-acp
//! in a Markdown code fence (```` ```console ````), Gemini CLI and Qwen Code in the report they
//! give the model (`Command: …`, `Output: …`, `Exit Code: …`, `Process Group PGID: …`),
//! GitHub Copilot CLI after a last line `<shellId: 1 completed with exit code 0>`, Deep Agents
//! Code in a Markdown report (`**Command:**`, `**Output:**` and a fence, `**Status:** … exit
//! code 0`). The timeline shows the command's own output (and its exit code where the report
//! has it).
//!
//! OpenHands shows a report too (`Tool: terminal`, `Result:`, the output, `📁 Working
//! directory: …`, `✅ Exit code: 0`), but its `rawOutput` is the observation itself
//! ([`observation`]), which is read instead.

/// The keys of a Gemini / Qwen command report, each at the start of a line.
const REPORT_KEYS: [&str; 8] = [
    "Command:",
    "Directory:",
    "Output:",
    "Error:",
    "Exit Code:",
    "Signal:",
    "Background PIDs:",
    "Process Group PGID:",
];

/// What a report or a fence leaves of `text`: the output, and the exit code when stated.
pub fn clean(text: &str) -> (String, Option<i64>) {
    if let Some(report) = report(text).or_else(|| markdown_report(text)) {
        return report;
    }
    if let Some(trailed) = shell_trailer(text) {
        return trailed;
    }
    (unfenced(text).unwrap_or(text).to_string(), None)
}

/// A command's output and exit code from OpenHands' `rawOutput`, its observation event:
/// `{"observation": {"content": [{"type": "text", "text": …}], "exit_code": 0, …}}`.
pub fn observation(raw: &serde_json::Value) -> Option<(String, Option<i64>)> {
    let observation = raw.get("observation")?;
    let texts: Vec<&str> = observation
        .get("content")?
        .as_array()?
        .iter()
        .filter(|c| c.get("type").and_then(serde_json::Value::as_str) == Some("text"))
        .filter_map(|c| c.get("text").and_then(serde_json::Value::as_str))
        .collect();
    let exit = observation
        .get("exit_code")
        .or_else(|| observation.pointer("/metadata/exit_code"))
        .and_then(serde_json::Value::as_i64)
        // -1: still running past its soft timeout, no exit code yet.
        .filter(|code| *code >= 0);
    Some((texts.concat(), exit))
}

/// The inside of a text that is one Markdown code fence.
fn unfenced(text: &str) -> Option<&str> {
    let body = text.trim().strip_prefix("```")?.strip_suffix("```")?;
    // The opening fence's line names the language.
    let (_, inner) = body.split_once('\n')?;
    Some(inner.strip_suffix('\n').unwrap_or(inner))
}

/// Copilot's output: the command's lines, then `<shellId: N completed with exit code X>`.
fn shell_trailer(text: &str) -> Option<(String, Option<i64>)> {
    let trimmed = text.trim_end();
    let (output, last) = match trimmed.rsplit_once('\n') {
        Some((output, last)) => (output, last),
        None => ("", trimmed),
    };
    let inner = last.trim().strip_prefix("<shellId:")?.strip_suffix('>')?;
    let exit = inner
        .rsplit_once("exit code")
        .and_then(|(_, code)| code.trim().parse::<i64>().ok());
    Some((output.to_string(), exit))
}

fn key_of(line: &str) -> Option<&'static str> {
    REPORT_KEYS.iter().copied().find(|k| line.starts_with(k))
}

/// A command report: it starts with one of its keys and holds an `Output:` line.
fn report(text: &str) -> Option<(String, Option<i64>)> {
    let first = text.lines().next()?;
    key_of(first)?;
    let mut output: Option<Vec<&str>> = None;
    let mut exit = None;
    let mut in_output = false;
    for line in text.lines() {
        match key_of(line) {
            Some("Output:") => {
                in_output = true;
                let rest = line["Output:".len()..].trim_start();
                output = Some(vec![rest]);
            }
            Some(key) => {
                in_output = false;
                if key == "Exit Code:" {
                    exit = line[key.len()..].trim().parse::<i64>().ok();
                }
            }
            None if in_output => output.get_or_insert_with(Vec::new).push(line),
            None => {}
        }
    }
    let output = output?.join("\n");
    let output = if output.trim() == "(empty)" {
        String::new()
    } else {
        output
    };
    Some((output, exit))
}

/// Deep Agents Code's report: the fence after a `**Output:**` line (`<no output>` inside: none),
/// the exit code at the end of the `**Status:**` line.
fn markdown_report(text: &str) -> Option<(String, Option<i64>)> {
    let (_, after) = text.split_once("**Output:**\n")?;
    let body = after.strip_prefix("```")?;
    let (_, body) = body.split_once('\n')?;
    let (output, rest) = body.split_once("\n```").or_else(|| {
        // An empty fence closes on the line right after the opening one.
        body.strip_prefix("```").map(|rest| ("", rest))
    })?;
    let output = if output.trim() == "<no output>" {
        ""
    } else {
        output
    };
    let exit = rest
        .lines()
        .find_map(|l| l.strip_prefix("**Status:**"))
        .and_then(|status| status.rsplit_once("exit code"))
        .and_then(|(_, code)| code.trim().trim_end_matches('.').parse::<i64>().ok());
    Some((output.to_string(), exit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn copilots_shell_trailer_gives_the_exit_code() {
        assert_eq!(
            clean("SHOWN-OUTPUT-7\n<shellId: 1 completed with exit code 0>"),
            ("SHOWN-OUTPUT-7".to_string(), Some(0))
        );
        assert_eq!(
            clean("a\nb\n<shellId: 12 completed with exit code 2>\n"),
            ("a\nb".to_string(), Some(2))
        );
        assert_eq!(
            clean("<shellId: 3 completed with exit code 0>"),
            (String::new(), Some(0))
        );
    }

    #[test]
    fn a_qwen_report_leaves_the_output_and_the_exit_code() {
        let text = "Command: echo hi\nDirectory: (root)\nOutput: hi\nthere\nError: (none)\nExit Code: 3\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 7789";
        assert_eq!(clean(text), ("hi\nthere".to_string(), Some(3)));
    }

    #[test]
    fn a_gemini_report_leaves_the_output() {
        assert_eq!(
            clean("Output: hello\nProcess Group PGID: 6073"),
            ("hello".to_string(), None)
        );
        assert_eq!(
            clean("Output: (empty)\nProcess Group PGID: 1"),
            (String::new(), None)
        );
    }

    #[test]
    fn a_deep_agents_report_leaves_the_output_and_the_exit_code() {
        let report = |output: &str, status: &str| {
            format!("**Command:**\n```bash\necho hi\n```\n\n**Output:**\n```\n{output}\n```\n\n**Status:** {status}")
        };
        assert_eq!(
            clean(&report(
                "SHOWN-7\nmore",
                "Command succeeded with exit code 0"
            )),
            ("SHOWN-7\nmore".to_string(), Some(0))
        );
        assert_eq!(
            clean(&report("<no output>", "Command failed with exit code 2")),
            (String::new(), Some(2))
        );
    }

    #[test]
    fn an_openhands_observation_gives_the_output_and_the_exit_code() {
        let raw = serde_json::json!({"kind": "ObservationEvent", "tool_name": "terminal",
            "observation": {"kind": "TerminalObservation", "command": "echo SHOWN",
                "content": [{"type": "text", "text": "SHOWN\nmore"}], "exit_code": 0,
                "metadata": {"exit_code": 0, "working_dir": "/w"}}});
        assert_eq!(
            observation(&raw),
            Some(("SHOWN\nmore".to_string(), Some(0)))
        );
        let running = serde_json::json!({"observation": {"content": [], "exit_code": -1}});
        assert_eq!(observation(&running), Some((String::new(), None)));
        assert_eq!(observation(&serde_json::json!({"output": "x"})), None);
    }

    #[test]
    fn a_fence_is_unwrapped() {
        assert_eq!(
            clean("```console\nSHOWN\nmore\n```"),
            ("SHOWN\nmore".to_string(), None)
        );
    }

    #[test]
    fn plain_output_is_kept_as_it_is() {
        for text in [
            "hello",
            "Output files: 3",
            "line\nOutput: not a report",
            "```",
        ] {
            assert_eq!(clean(text), (text.to_string(), None), "{text}");
        }
    }
}
