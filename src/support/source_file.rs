//! An input file held with its text, so every error about it can say `file:line:column`.
//!
//! Every file a user names (gpushare.toml, mig-parted and vgpu-device-manager configs, node files,
//! simulator state) is read here, and only here: regular files only — a link to one is fine, but
//! a FIFO must not block and a device such as `/dev/zero` must not be read — and at most
//! [`MAX_INPUT_BYTES`]; `-` reads stdin with the same cap.

use crate::support::error::{Error, Result, line_col};
use std::io::Read;
use std::ops::Range;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The toml crate's limit on nesting (its parser's `LIMIT`), named in the error that reaches it.
const TOML_RECURSION_LIMIT: u32 = 80;

/// The most gpushare reads from one input file or from stdin: 16 MiB, far beyond any real layout.
pub(crate) const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

impl SourceFile {
    /// Read a file the user named; a missing, unreadable, special or oversize file is bad input
    /// (exit 2).
    pub(crate) fn read(path: &Path) -> Result<Self> {
        let cannot = |e: &dyn std::fmt::Display| {
            Error::usage(format!("cannot read {}: {e}", path.display()))
                .with_hint("check the path and its permissions")
        };
        // Look before opening: opening a device can have effects of its own.
        let meta = std::fs::metadata(path).map_err(|e| cannot(&e))?;
        refuse_special(path, &meta)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| cannot(&e))?;
        // It may have been swapped since it was looked at: check what was opened.
        refuse_special(path, &file.metadata().map_err(|e| cannot(&e))?)?;
        let bytes = read_capped(file, &path.display().to_string()).map_err(|e| match e {
            Capped::TooLarge(e) => e,
            Capped::Io(e) => cannot(&e),
        })?;
        Self::from_bytes(path.to_path_buf(), bytes)
    }

    /// Read a file the user named, or standard input for `-`.
    pub(crate) fn read_or_stdin(path: &Path) -> Result<Self> {
        if path != Path::new("-") {
            return Self::read(path);
        }
        let bytes = read_capped(std::io::stdin().lock(), "stdin").map_err(|e| match e {
            Capped::TooLarge(e) => e,
            Capped::Io(e) => Error::usage(format!("cannot read stdin: {e}")),
        })?;
        Self::from_bytes(PathBuf::from("<stdin>"), bytes)
    }

    /// Text from bytes; bytes that are not UTF-8 are bad input at their position.
    fn from_bytes(path: PathBuf, bytes: Vec<u8>) -> Result<Self> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile { path, text }),
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.as_bytes();
                // The text up to the bad byte is UTF-8: its lines and columns are known.
                let before = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
                let position = line_col(before, valid);
                Err(Error::in_file(
                    &path,
                    Some(position),
                    format!("byte 0x{:02x} is not UTF-8 text", bytes[valid]),
                )
                .with_hint("it is not UTF-8 text: give a TOML, YAML or JSON file"))
            }
        }
    }

    /// Text that did not come from a file (an embedded preset, a test).
    pub fn inline(name: &str, text: &str) -> Self {
        SourceFile {
            path: PathBuf::from(name),
            text: text.to_string(),
        }
    }

    /// An error pointing at a byte range of the file.
    pub(crate) fn error_at(
        &self,
        span: Option<Range<usize>>,
        message: impl std::fmt::Display,
    ) -> Error {
        let position = span.map(|s| line_col(&self.text, s.start));
        Error::in_file(&self.path, position, message)
    }

    /// Deserialize the file as TOML, reporting syntax and schema errors with their position.
    pub(crate) fn parse_toml<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        toml::from_str(&self.text).map_err(|e| {
            let message = e.message().trim().replace('\n', "; ");
            if e.span().is_none() && message == "recursion limit" {
                // The parser says no more: the deepest line is where the file went too deep.
                return self
                    .error_at(
                        Some(self.deepest_line()),
                        format!(
                            "nested deeper than the TOML parser's recursion limit ({TOML_RECURSION_LIMIT} dotted key parts, tables or arrays inside one another)"
                        ),
                    )
                    .with_hint("a gpushare.toml nests a few levels at most: flatten this key");
            }
            self.error_at(e.span(), message)
        })
    }

    /// The start of the line with the most `.`, `[` and `{`: where a TOML file nests deepest.
    fn deepest_line(&self) -> Range<usize> {
        let mut offset = 0;
        let mut best = (0, 0);
        for line in self.text.split_inclusive('\n') {
            let depth = line
                .chars()
                .filter(|c| matches!(c, '.' | '[' | '{'))
                .count();
            if depth > best.1 {
                best = (offset, depth);
            }
            offset += line.len();
        }
        best.0..best.0
    }

    /// Deserialize the file as YAML, strictly: only `true` and `false` are booleans (not `yes`
    /// or `on`), a tag gpushare does not know (`!foo`, `!!python/object…`) is an error, a key
    /// appears once, aliases are bounded; errors carry their position.
    pub(crate) fn parse_yaml<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        let options = serde_saphyr::options! {
            strict_booleans: true,
            reject_unsupported_tags: true,
            reject_tagged_field_names: true,
            // Room for every plain file up to MAX_INPUT_BYTES; what stays bounded is what an
            // alias would multiply (the parser's own defaults).
            budget: serde_saphyr::budget! {
                max_nodes: YAML_MAX_NODES,
                max_events: 2 * YAML_MAX_NODES,
            },
        };
        serde_saphyr::from_str_with_options(&self.text, options).map_err(|e| {
            let position = e
                .location()
                .map(|l| (l.line() as usize, l.column() as usize));
            if let serde_saphyr::Error::Budget { breach, .. } = &e {
                return Error::in_file(&self.path, position, budget_message(breach)).with_hint(
                    "a layout is a few kilobytes; check that this is the right file, or split it",
                );
            }
            let error = Error::in_file(&self.path, position, yaml_message(&e));
            // YAML ends a key (one not written `? key`) after 1024 characters: say so, or a
            // huge key only reads as "expected mapping start".
            let long_line = position
                .and_then(|(line, _)| self.text.lines().nth(line.saturating_sub(1)))
                .is_some_and(|l| l.chars().count() > 1024);
            if long_line {
                error.with_hint("a YAML key is at most 1024 characters long")
            } else {
                error
            }
        })
    }

    /// An error about the whole file, placed at its start (`file:1:1`): a required key that is
    /// missing has no place of its own.
    pub(crate) fn error_at_start(&self, message: impl std::fmt::Display) -> Error {
        self.error_at(Some(0..0), message)
    }
}

/// The most YAML nodes gpushare reads from one file: well past any file of
/// [`MAX_INPUT_BYTES`] that does not use aliases (a 10 MB mig-parted file of 60,000 labels has
/// about 500,000).
const YAML_MAX_NODES: usize = 4_000_000;

/// Which of the YAML reader's limits a file reached, and its value.
fn budget_message(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    let (what, limit) = match breach {
        B::Nodes { .. } => (
            "YAML nodes (scalars, lists and maps)",
            YAML_MAX_NODES.to_string(),
        ),
        B::Events { .. } => ("YAML parser events", (2 * YAML_MAX_NODES).to_string()),
        B::Aliases { .. } => ("aliases (`*name`)", "50,000".into()),
        B::Anchors { .. } => ("anchors (`&name`)", "50,000".into()),
        B::Depth { .. } => ("levels of nesting", "64".into()),
        B::AliasAnchorRatio { .. } => (
            "aliases per anchor (a file that expands without end)",
            "10".into(),
        ),
        B::MergeKeys { .. } => ("merge keys (`<<`)", "10,000".into()),
        B::ScalarBytes { .. } => ("bytes of values", "64 MiB".into()),
        _ => return format!("the YAML reader's limit was reached: {breach:?}"),
    };
    format!("more {what} than gpushare's YAML reader takes (the limit is {limit})")
}

/// A YAML error's message without the parser's own location, snippet or advice about its
/// options (the position goes in front, as for every input error).
fn yaml_message(e: &serde_saphyr::Error) -> String {
    let options = serde_saphyr::render_options! { snippets: serde_saphyr::SnippetMode::Off };
    let rendered = e.render_with_options(options);
    let message = match rendered.rfind(" at line ") {
        Some(i) if e.location().is_some() => &rendered[..i],
        _ => rendered.as_str(),
    };
    let message = message
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(message);
    let message = message.trim();
    let message = message.strip_prefix("error: ").unwrap_or(message);
    message.replace('\n', "; ")
}

/// Refuse anything but a regular file (after following links): a directory, a FIFO that would
/// block, a device that never ends.
fn refuse_special(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "{} is {}, not a regular file",
        path.display(),
        crate::support::fsutil::own::kind_of(meta)
    ))
    .with_hint("give a regular file, or `-` and the text on stdin where the command takes it"))
}

enum Capped {
    TooLarge(Error),
    Io(std::io::Error),
}

/// Read at most [`MAX_INPUT_BYTES`]; one byte more is an error naming `what`.
fn read_capped(reader: impl Read, what: &str) -> std::result::Result<Vec<u8>, Capped> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(Capped::Io)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(Capped::TooLarge(
            Error::usage(format!(
                "{what} is larger than {} MiB, the most gpushare reads from one input",
                MAX_INPUT_BYTES / (1024 * 1024)
            ))
            .with_hint(
                "a layout or node file is a few kilobytes: check that this is the right file",
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct T {
        a: u32,
    }

    #[test]
    fn toml_errors_carry_line_and_column() {
        let f = SourceFile::inline("x.toml", "\n\na = \"one\"\n");
        let e = f.parse_toml::<T>().unwrap_err();
        assert!(e.message.starts_with("x.toml:3:5: "), "{}", e.message);
        let f = SourceFile::inline("x.toml", "a = 1\nb = 2\n");
        let e = f.parse_toml::<T>().unwrap_err();
        assert!(e.message.starts_with("x.toml:2:1: "), "{}", e.message);
        assert!(e.message.contains("unknown field `b`"), "{}", e.message);
    }

    #[test]
    fn a_missing_file_is_bad_input() {
        let e = SourceFile::read(Path::new("/no/such/file.toml")).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(e.message.contains("/no/such/file.toml"));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("gpushare.toml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = SourceFile::read(&fifo).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(
            e.message
                .contains("is a FIFO (named pipe), not a regular file"),
            "{}",
            e.message
        );
    }

    #[test]
    fn devices_and_directories_are_refused() {
        let e = SourceFile::read(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(e.message.contains("/dev/zero is a device"), "{}", e.message);
        let dir = tempfile::tempdir().unwrap();
        let e = SourceFile::read(dir.path()).unwrap_err();
        assert!(e.message.contains("is a directory"), "{}", e.message);
    }

    #[test]
    fn a_link_to_a_regular_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.toml");
        std::fs::write(&real, "a = 1\n").unwrap();
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(SourceFile::read(&link).unwrap().text, "a = 1\n");
    }

    #[test]
    fn an_oversize_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.toml");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_INPUT_BYTES + 1).unwrap();
        let e = SourceFile::read(&big).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(e.message.contains("larger than 16 MiB"), "{}", e.message);
        f.set_len(MAX_INPUT_BYTES).unwrap();
        assert!(SourceFile::read(&big).is_ok());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_placed() {
        let e =
            SourceFile::from_bytes("x.toml".into(), b"a = 1\nb = \"\xff\"\n".to_vec()).unwrap_err();
        assert!(
            e.message.starts_with("x.toml:2:6: byte 0xff"),
            "{}",
            e.message
        );
    }
}
