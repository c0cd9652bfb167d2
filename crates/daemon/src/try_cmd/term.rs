//! Terminal details: colors (only on a TTY, never with `NO_COLOR`), the spinner (stderr, only
//! on a TTY) and text excerpts.

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub enabled: bool,
}

impl Style {
    /// Colors when stdout is a terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`.
    pub fn detect() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style {
            enabled: std::io::stdout().is_terminal() && !no_color && !dumb,
        }
    }

    #[cfg(test)]
    pub fn plain() -> Style {
        Style { enabled: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
    pub fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
    pub fn red(&self, t: &str) -> String {
        self.paint("31", t)
    }
    pub fn green(&self, t: &str) -> String {
        self.paint("32", t)
    }
    pub fn yellow(&self, t: &str) -> String {
        self.paint("33", t)
    }
    pub fn cyan(&self, t: &str) -> String {
        self.paint("36", t)
    }
}

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠤", "⠇", "⠏"];

/// A one-line spinner on stderr. Inert unless stderr is a terminal.
pub struct Spinner {
    enabled: bool,
    visible: bool,
    frame: usize,
    since: Instant,
    label: String,
}

impl Spinner {
    pub fn detect() -> Spinner {
        Spinner {
            enabled: std::io::stderr().is_terminal(),
            visible: false,
            frame: 0,
            since: Instant::now(),
            label: "working".into(),
        }
    }

    #[cfg(test)]
    pub fn disabled() -> Spinner {
        Spinner {
            enabled: false,
            ..Spinner::detect()
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Restarts the elapsed-time clock (when the turn starts).
    pub fn restart(&mut self) {
        self.since = Instant::now();
    }

    pub fn set_label(&mut self, label: &str) {
        self.label = label.to_string();
    }

    /// Draws the next frame.
    pub fn tick(&mut self) {
        if !self.enabled {
            return;
        }
        self.frame = (self.frame + 1) % FRAMES.len();
        let secs = self.since.elapsed().as_secs_f64();
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K{} {} {secs:.1}s",
            FRAMES[self.frame], self.label
        );
        let _ = err.flush();
        self.visible = true;
    }

    /// Erases the spinner line (before anything else is printed).
    pub fn clear(&mut self) {
        if self.visible {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.visible = false;
        }
    }
}

/// The first `max_lines` lines of `text`, each cut to `max_cols` characters, plus a line saying
/// how many lines were left out. Trailing blank lines are ignored.
pub fn excerpt(text: &str, max_lines: usize, max_cols: usize) -> Vec<String> {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(max_lines)
        .map(|l| truncate(l, max_cols))
        .collect();
    if lines.len() > max_lines {
        let more = lines.len() - max_lines;
        out.push(format!(
            "… {more} more line{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}

/// `text` cut to `max` characters (an ellipsis marks the cut), on one line.
pub fn truncate(text: &str, max: usize) -> String {
    let flat = text.replace(['\n', '\r'], " ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn plain_style_adds_nothing() {
        assert_eq!(Style::plain().red("x"), "x");
        assert_eq!(Style { enabled: true }.red("x"), "\x1b[31mx\x1b[0m");
    }

    #[test]
    fn excerpt_keeps_first_lines_and_counts_the_rest() {
        assert_eq!(excerpt("a\nb\n", 5, 10), vec!["a", "b"]);
        assert_eq!(
            excerpt("1\n2\n3\n4", 2, 10),
            vec!["1", "2", "… 2 more lines"]
        );
        assert_eq!(excerpt("1\n2\n3", 2, 10), vec!["1", "2", "… 1 more line"]);
        assert_eq!(excerpt("abcdefghijkl", 1, 5), vec!["abcd…"]);
        assert!(excerpt("", 3, 10).is_empty());
    }

    #[test]
    fn truncate_counts_characters_not_bytes() {
        assert_eq!(truncate("héllo", 5), "héllo");
        assert_eq!(truncate("héllo wörld", 6), "héllo…");
        assert_eq!(truncate("a\nb", 10), "a b");
    }
}
