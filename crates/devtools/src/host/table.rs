//! The tables `bench` and `soak` print: metric, measured, target, verdict.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    Pass,
    Fail,
    Info,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub metric: String,
    pub measured: String,
    pub target: String,
    pub verdict: Verdict,
}

pub fn row(metric: &str, measured: String, target: &str, pass: Option<bool>) -> Row {
    Row {
        metric: metric.into(),
        measured,
        target: target.into(),
        verdict: match pass {
            None => Verdict::Info,
            Some(true) => Verdict::Pass,
            Some(false) => Verdict::Fail,
        },
    }
}

/// The table: metric, measured, target, verdict; columns padded to their widest cell.
pub fn format_table(rows: &[Row]) -> String {
    let header = Row {
        metric: "metric".into(),
        measured: "measured".into(),
        target: "target".into(),
        verdict: Verdict::Info,
    };
    let all: Vec<&Row> = std::iter::once(&header).chain(rows).collect();
    let w = |f: fn(&Row) -> &str| all.iter().map(|r| f(r).chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (w(|r| &r.metric), w(|r| &r.measured), w(|r| &r.target));
    let mut out = String::new();
    for (i, r) in all.iter().enumerate() {
        let verdict = match (i, r.verdict) {
            (0, _) => "",
            (_, Verdict::Pass) => "ok",
            (_, Verdict::Fail) => "MISSED",
            (_, Verdict::Info) => "",
        };
        let line = format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {verdict}",
            r.metric, r.measured, r.target
        );
        out.push_str(line.trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(w0 + w1 + w2 + 12));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn table_pads_columns_and_marks_verdicts() {
        let rows = vec![
            row("a", "1 ms".into(), "< 10 ms", Some(true)),
            row("longer metric", "20 ms".into(), "< 10 ms", Some(false)),
            row("info", "x".into(), "", None),
        ];
        let table = format_table(&rows);
        let expected = "\
metric         measured  target
----------------------------------------
a              1 ms      < 10 ms  ok
longer metric  20 ms     < 10 ms  MISSED
info           x
";
        assert_eq!(table, expected);
    }
}
