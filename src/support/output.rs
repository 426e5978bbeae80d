//! Everything gpushare prints: data on stdout (table, JSON or YAML), messages on stderr.
//!
//! Text for people (tables, notes, warnings, errors, hints, progress) holds strings from the
//! driver, from files and from `/proc`; a process name with escape sequences must not reach
//! root's terminal. So every such text is escaped here, when it is written, not where it is
//! built: control characters become visible (`\x1b`, `\r`, `\u{9b}`), and table cells show
//! their newlines as `\n`. Colour is marked while text is built and turned into escape sequences
//! only after that, with a per-process random key no outside string can forge. JSON and YAML
//! are data: their serializers escape what needs escaping.

use crate::support::error::{Error, Result};
use clap::ValueEnum;
use serde::Serialize;
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

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
            Format::Json => to_safe_json(value)?,
            Format::Yaml => to_safe_yaml(value)?,
            Format::Table => for_terminal(&table(self), self.color_stdout),
        };
        self.stdout(&text)
    }

    /// Write data to stdout as it is (generated YAML, a man page); a closed pipe (`| head`) is
    /// not an error. Text for people goes through [`Output::data`].
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
            self.stderr(message.as_ref());
        }
    }

    /// A warning on stderr; shown even with --quiet.
    pub fn warn(&self, message: impl AsRef<str>) {
        self.stderr(&format!(
            "{} {}",
            self.paint_err(Style::Warn, "warning:"),
            message.as_ref()
        ));
    }

    /// Print an error and its hint on stderr.
    pub fn error(&self, e: &Error) {
        self.stderr(&format!(
            "{} {}",
            self.paint_err(Style::Bad, "error:"),
            e.message
        ));
        if let Some(hint) = &e.hint {
            self.stderr(&format!("{} {hint}", self.paint_err(Style::Bold, "hint:")));
        }
    }

    /// A question on stderr, without a newline (the answer follows on the same line).
    pub fn prompt(&self, question: &str) -> Result<()> {
        let mut err = std::io::stderr().lock();
        err.write_all(for_terminal(question, self.color_stderr).as_bytes())
            .and_then(|_| err.flush())
            .map_err(|e| Error::failed(format!("cannot write to stderr: {e}")))
    }

    /// One line (or several) for people on stderr, escaped, each line shortened to what a
    /// person reads (a 200 KB value from a hostile file is not echoed whole).
    fn stderr(&self, text: &str) {
        let shown: Vec<String> = text.lines().map(|l| shorten(l).into_owned()).collect();
        stderr_line(&for_terminal(&shown.join("\n"), self.color_stderr));
    }

    /// A progress bar on stderr for `len` steps. Hidden with --quiet; indicatif also hides it
    /// when stderr is not a terminal, so logs and pipes stay clean.
    pub fn progress(&self, len: u64) -> Progress {
        self.progress_with(len, "{bar:30} {pos}/{len} {elapsed:>4} {msg}")
    }

    /// A progress bar drawn with an indicatif `template`.
    pub fn progress_with(&self, len: u64, template: &str) -> Progress {
        if self.quiet {
            return Progress(indicatif::ProgressBar::hidden());
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(len),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress(bar)
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
pub(crate) fn stderr_line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// A progress bar whose messages are escaped like every other text for people.
pub struct Progress(indicatif::ProgressBar);

impl Progress {
    pub fn set_message(&self, message: impl AsRef<str>) {
        self.0
            .set_message(escape_controls(message.as_ref(), true).into_owned());
    }

    pub fn set_position(&self, position: u64) {
        self.0.set_position(position);
    }

    pub fn inc(&self, delta: u64) {
        self.0.inc(delta);
    }

    pub fn finish_and_clear(&self) {
        self.0.finish_and_clear();
    }
}

/// The longest message line shown whole; longer ones keep their start and end.
const MAX_LINE_CHARS: usize = 2000;

/// `line`, or its first and last characters around a note of how many were left out.
fn shorten(line: &str) -> Cow<'_, str> {
    let count = line.chars().count();
    if count <= MAX_LINE_CHARS {
        return Cow::Borrowed(line);
    }
    let head: String = line.chars().take(MAX_LINE_CHARS - 200).collect();
    let tail: String = line.chars().skip(count - 100).collect();
    Cow::Owned(format!(
        "{head}…[{} characters left out]…{tail}",
        count - head.chars().count() - 100
    ))
}

/// Colour marks are `MARK_OPEN`, the key and the SGR code as Unicode tag characters (U+E0020…
/// U+E007E mirror ASCII), then `MARK_CLOSE`: all of zero width, so tables lay out painted cells by
/// what shows.
const MARK_OPEN: char = '\u{E0001}';
const MARK_CLOSE: char = '\u{E007F}';

/// ASCII as tag characters.
fn tags(ascii: &str) -> String {
    ascii
        .chars()
        .filter_map(|c| char::from_u32(0xE0000 + c as u32))
        .collect()
}

/// Tag characters back to ASCII; `None` for anything else.
fn untag(text: &str) -> Option<String> {
    text.chars()
        .map(|c| {
            (c as u32)
                .checked_sub(0xE0000)
                .filter(|a| (0x20..0x7f).contains(a))
                .and_then(char::from_u32)
        })
        .collect()
}

/// `MARK_OPEN` and this process's key, random so that no string from outside carries a mark.
fn mark_opening() -> &'static str {
    static OPENING: OnceLock<String> = OnceLock::new();
    OPENING.get_or_init(|| {
        let key = crate::support::fsutil::random::hex64().unwrap_or_else(|_| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            format!("{:x}{t:x}", std::process::id())
        });
        format!("{MARK_OPEN}{}", tags(&key))
    })
}

fn paint(enabled: bool, style: Style, text: &str) -> String {
    if enabled {
        let open = mark_opening();
        format!(
            "{open}{}{MARK_CLOSE}{text}{open}{}{MARK_CLOSE}",
            tags(style.code()),
            tags("0")
        )
    } else {
        text.to_string()
    }
}

/// The argument parser's error (plain text) on stderr, its control characters escaped.
pub(crate) fn parse_error(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(escape_controls(text, false).as_bytes());
}

/// Text for people as it goes to a terminal: control characters escaped (newlines and tabs
/// kept), then this process's colour marks turned into SGR sequences (`color`) or dropped.
pub(crate) fn for_terminal(text: &str, color: bool) -> String {
    let escaped = escape_controls(text, false);
    let opening = mark_opening();
    let mut out = String::with_capacity(escaped.len());
    let mut rest: &str = &escaped;
    while let Some(at) = rest.find(opening) {
        out.push_str(&rest[..at]);
        let after = &rest[at + opening.len()..];
        let tagged = after.find(MARK_CLOSE).map(|end| &after[..end]);
        let code = tagged.and_then(untag).filter(|c| {
            (1..=4).contains(&c.len()) && c.chars().all(|ch| ch.is_ascii_digit() || ch == ';')
        });
        match (tagged, code) {
            (Some(tagged), Some(code)) => {
                if color {
                    out.push_str(&format!("\x1b[{code}m"));
                }
                rest = &after[tagged.len() + MARK_CLOSE.len_utf8()..];
            }
            _ => {
                out.push_str(opening);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Data as pretty JSON (with a final newline) in which no string carries a character
/// [`is_unsafe`] as it is: each is written as its `\uXXXX` escape.
pub(crate) fn to_safe_json<T: Serialize>(value: &T) -> Result<String> {
    let mut s = serde_json::to_string_pretty(value)
        .map_err(|e| Error::failed(format!("cannot write JSON: {e}")))?;
    s.push('\n');
    Ok(escape_unsafe_in_quotes(s))
}

/// Data as YAML in which no string carries a character [`is_unsafe`] as it is: such strings
/// are written double-quoted, where YAML's `\u` escape says the same thing.
pub(crate) fn to_safe_yaml<T: Serialize>(value: &T) -> Result<String> {
    let cannot = |e: &dyn std::fmt::Display| Error::failed(format!("cannot write YAML: {e}"));
    let text = serde_saphyr::to_string(value).map_err(|e| cannot(&e))?;
    if !text.chars().any(unsafe_in_data) {
        return Ok(text);
    }
    let data = serde_json::to_value(value).map_err(|e| cannot(&e))?;
    let quoted = serde_saphyr::to_string(&Quoting(&data)).map_err(|e| cannot(&e))?;
    Ok(escape_unsafe_in_quotes(quoted))
}

/// A JSON value serialised with its unsafe strings (keys too) in YAML's double quotes.
struct Quoting<'a>(&'a serde_json::Value);

impl Serialize for Quoting<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        use serde_json::Value;
        let quoted = |t: &str| t.chars().any(unsafe_in_data);
        match self.0 {
            Value::String(t) if quoted(t) => serde_saphyr::DoubleQuoted(t.as_str()).serialize(s),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&Quoting(item))?;
                }
                seq.end()
            }
            Value::Object(map) => {
                let mut m = s.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    if quoted(k) {
                        m.serialize_entry(&serde_saphyr::DoubleQuoted(k.as_str()), &Quoting(v))?;
                    } else {
                        m.serialize_entry(k, &Quoting(v))?;
                    }
                }
                m.end()
            }
            other => other.serialize(s),
        }
    }
}

/// Serialised data whose strings are all double-quoted wherever they hold an unsafe character
/// (JSON's always are; YAML's through [`Quoting`]), with each such character written as the
/// `\uXXXX` escape both formats read back as the same character.
fn escape_unsafe_in_quotes(text: String) -> String {
    if !text.chars().any(unsafe_in_data) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_in_data(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// An unsafe character in serialised data: newlines and tabs there are its layout (inside
/// strings the serializers escape them already).
fn unsafe_in_data(c: char) -> bool {
    is_unsafe(c) && c != '\n' && c != '\t'
}

/// Whether `c` must not reach a terminal as it is: C0 and C1 controls, DEL, and the bidi
/// overrides that reorder what is shown.
fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with its control characters made visible: `\x1b`, `\r`, `\x7f`, `\u{9b}`. Newlines
/// and tabs stay unless `cell` (one table cell, one progress message: shown as `\n`, `\t`).
pub(crate) fn escape_controls(text: &str, cell: bool) -> Cow<'_, str> {
    let keep = |c: char| !cell && (c == '\n' || c == '\t');
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe(c) || keep(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// A plain table: a header row, then rows, columns aligned, no borders. Each cell is escaped
/// (its newlines too), so a cell is one line whatever it holds.
pub(crate) fn table(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut builder = tabled::builder::Builder::default();
    builder.push_record(headers.iter().map(|h| h.to_string()));
    for row in rows {
        builder.push_record(
            row.iter()
                .map(|cell| escape_controls(cell, true).into_owned()),
        );
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
pub(crate) fn parse_size_mib(text: &str) -> std::result::Result<u64, String> {
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
        assert_eq!(
            for_terminal(&paint(true, Style::Good, "x"), true),
            "\x1b[32mx\x1b[0m"
        );
        assert_eq!(for_terminal(&paint(true, Style::Good, "x"), false), "x");
    }

    #[test]
    fn escape_sequences_from_outside_are_shown_not_sent() {
        let hostile = "python\x1b]0;owned\x07\x1b[2J\r\u{9b}31m\u{202e}gpj.exe";
        let shown = for_terminal(&format!("process {hostile} holds GPU 0"), true);
        assert_eq!(
            shown,
            "process python\\x1b]0;owned\\x07\\x1b[2J\\r\\u{9b}31m\\u{202e}gpj.exe holds GPU 0"
        );
        assert!(!shown.chars().any(is_unsafe));
        // Painted text from outside is escaped too, and only the paint itself becomes colour.
        let painted = for_terminal(&paint(true, Style::Bold, "a\x1b[8mb"), true);
        assert_eq!(painted, "\x1b[1ma\\x1b[8mb\x1b[0m");
        // A forged mark without this process's key stays as it is: no colour.
        let forged = format!("{MARK_OPEN}{}{MARK_CLOSE}x", tags("0123456789abcdef1"));
        assert_eq!(for_terminal(&forged, true), forged);
    }

    #[test]
    fn data_carries_no_raw_control_or_bidi_character_and_reads_back_the_same() {
        let hostile = "py\u{9b}31m\u{202e}gpj.exe\u{7f}\u{2066}\nx";
        let value = serde_json::json!({ "name": hostile, hostile: [hostile, "plain", 1] });
        let json = escape_unsafe_in_quotes(serde_json::to_string_pretty(&value).unwrap());
        assert!(!json.chars().any(unsafe_in_data), "{json}");
        assert!(
            json.contains("\\u009b") && json.contains("\\u202e"),
            "{json}"
        );
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, value);
        let yaml = to_safe_yaml(&value).unwrap();
        assert!(!yaml.chars().any(unsafe_in_data), "{yaml}");
        let back: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(back, value, "{yaml}");
        // Ordinary data is written as before, newlines in block strings included.
        let plain = serde_json::json!({ "a": "line\nnext", "b": "é" });
        assert_eq!(
            to_safe_yaml(&plain).unwrap(),
            serde_saphyr::to_string(&plain).unwrap()
        );
    }

    #[test]
    fn painted_cells_line_up_like_plain_ones() {
        let rows = |painted: bool| {
            let name = paint(painted, Style::Bold, "Tesla T4");
            vec![vec!["0".to_string(), name, "x".into()]]
        };
        let plain = table(&["GPU", "NAME", "BUS"], rows(false));
        let colored = for_terminal(&table(&["GPU", "NAME", "BUS"], rows(true)), false);
        assert_eq!(colored, plain);
    }

    #[test]
    fn huge_message_lines_are_shortened() {
        let line = format!(
            "error: x.toml:4:18: `{}` is not a type",
            "A".repeat(200_000)
        );
        let shown = shorten(&line);
        assert!(shown.chars().count() < 2100, "{}", shown.len());
        assert!(shown.starts_with("error: x.toml:4:18: `AAA"));
        assert!(shown.ends_with("AAA` is not a type"));
        assert!(shown.contains("characters left out"));
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn table_cells_stay_on_one_line() {
        let t = table(&["NAME"], vec![vec!["a\nerror: fake".into()]]);
        assert_eq!(t, "NAME\na\\nerror: fake\n", "{t:?}");
    }
}
