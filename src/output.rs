//! Everything gpushare prints: data on stdout (table, JSON or YAML), messages on stderr.

use crate::error::{Error, Result};
use clap::ValueEnum;
use serde::Serialize;
use std::io::{IsTerminal, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Tables for people.
    #[default]
    Table,
    /// JSON for scripts (the field names are a stable contract).
    Json,
    /// The same data as YAML.
    Yaml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and NO_COLOR is not set.
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Bold,
    Dim,
    Good,
    Warn,
    Bad,
}

impl Style {
    fn code(self) -> &'static str {
        match self {
            Style::Bold => "1",
            Style::Dim => "2",
            Style::Good => "32",
            Style::Warn => "33",
            Style::Bad => "1;31",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Output {
    pub format: Format,
    pub quiet: bool,
    color_stdout: bool,
    color_stderr: bool,
}

fn wants_color(choice: ColorChoice, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            is_terminal
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
        }
    }
}

impl Output {
    pub fn new(format: Format, quiet: bool, color: ColorChoice) -> Self {
        Output {
            format,
            quiet,
            color_stdout: wants_color(color, std::io::stdout().is_terminal()),
            color_stderr: wants_color(color, std::io::stderr().is_terminal()),
        }
    }

    /// Print data: as JSON or YAML, or as the table text `table` renders.
    pub fn data<T: Serialize>(
        &self,
        value: &T,
        table: impl FnOnce(&Output) -> String,
    ) -> Result<()> {
        let text = match self.format {
            Format::Json => {
                let mut s = serde_json::to_string_pretty(value)
                    .map_err(|e| Error::failed(format!("cannot write JSON: {e}")))?;
                s.push('\n');
                s
            }
            Format::Yaml => serde_saphyr::to_string(value)
                .map_err(|e| Error::failed(format!("cannot write YAML: {e}")))?,
            Format::Table => table(self),
        };
        self.stdout(&text)
    }

    /// Write text to stdout; a closed pipe (`| head`) is not an error.
    pub fn stdout(&self, text: &str) -> Result<()> {
        let mut out = std::io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(Error::failed(format!("cannot write to stdout: {e}")))
            }
            _ => Ok(()),
        }
    }

    /// A progress or status line on stderr; silenced by --quiet.
    pub fn note(&self, message: impl AsRef<str>) {
        if !self.quiet {
            stderr_line(message.as_ref());
        }
    }

    /// A warning on stderr; shown even with --quiet.
    pub fn warn(&self, message: impl AsRef<str>) {
        stderr_line(&format!(
            "{} {}",
            self.paint_err(Style::Warn, "warning:"),
            message.as_ref()
        ));
    }

    /// Print an error and its hint on stderr.
    pub fn error(&self, e: &Error) {
        stderr_line(&format!(
            "{} {}",
            self.paint_err(Style::Bad, "error:"),
            e.message
        ));
        if let Some(hint) = &e.hint {
            stderr_line(&format!("{} {hint}", self.paint_err(Style::Bold, "hint:")));
        }
    }

    /// A progress bar on stderr for `len` steps. Hidden with --quiet; indicatif also hides it
    /// when stderr is not a terminal, so logs and pipes stay clean.
    pub fn progress(&self, len: u64) -> indicatif::ProgressBar {
        if self.quiet {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(len),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed:>4} {msg}")
        {
            bar.set_style(style);
        }
        bar
    }

    /// Style text bound for stdout.
    pub fn paint(&self, style: Style, text: &str) -> String {
        paint(self.color_stdout, style, text)
    }

    /// Style text bound for stderr.
    pub fn paint_err(&self, style: Style, text: &str) -> String {
        paint(self.color_stderr, style, text)
    }
}

/// One line on stderr. A closed or full stderr (`2>&-`, `2>&1 | head -0`) loses the line but
/// never the exit code: `eprintln!` would panic there, and a panic while reporting one aborts.
pub fn stderr_line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

fn paint(enabled: bool, style: Style, text: &str) -> String {
    if enabled {
        format!("\x1b[{}m{text}\x1b[0m", style.code())
    } else {
        text.to_string()
    }
}

/// A plain table: a header row, then rows, columns aligned, no borders.
pub fn table(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut builder = tabled::builder::Builder::default();
    builder.push_record(headers.iter().map(|h| h.to_string()));
    for row in rows {
        builder.push_record(row);
    }
    let mut t = builder.build();
    t.with(tabled::settings::Style::blank());
    t.with(tabled::settings::Padding::new(0, 1, 0, 0));
    let mut s: String = t
        .to_string()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    s.push('\n');
    s
}

/// Parse sizes like `4G`, `4GiB`, `512M`, `2048` (MiB): the result is in MiB.
pub fn parse_size_mib(text: &str) -> std::result::Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 4G, 512M, 2048M)"))?;
    let factor = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "m" | "mi" | "mib" | "mb" => 1.0,
        "g" | "gi" | "gib" | "gb" => 1024.0,
        "t" | "ti" | "tib" | "tb" => 1024.0 * 1024.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (use M or G)")),
    };
    let mib = value * factor;
    if !mib.is_finite() || !(1.0..=1e12).contains(&mib) {
        return Err(format!("`{text}` is out of range"));
    }
    Ok(mib.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns() {
        let t = table(&["A", "LONG"], vec![vec!["xx".into(), "1".into()]]);
        assert_eq!(t, "A   LONG\nxx  1\n", "{t:?}");
    }

    #[test]
    fn sizes_are_read_in_mib() {
        assert_eq!(parse_size_mib("4G").unwrap(), 4096);
        assert_eq!(parse_size_mib("4GiB").unwrap(), 4096);
        assert_eq!(parse_size_mib("512M").unwrap(), 512);
        assert_eq!(parse_size_mib("2048").unwrap(), 2048);
        assert_eq!(parse_size_mib("1.5g").unwrap(), 1536);
        assert!(parse_size_mib("4X").is_err());
        assert!(parse_size_mib("-1G").is_err());
        assert!(parse_size_mib("0").is_err());
    }

    #[test]
    fn painting_is_off_when_disabled() {
        assert_eq!(paint(false, Style::Bad, "x"), "x");
        assert_eq!(paint(true, Style::Good, "x"), "\x1b[32mx\x1b[0m");
    }
}
