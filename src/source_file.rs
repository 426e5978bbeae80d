//! An input file held with its text, so every error about it can say `file:line:column`.

use crate::error::{Error, Result, line_col};
use std::ops::Range;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: String,
}

impl SourceFile {
    /// Read a file the user named; a missing or unreadable file is bad input (exit 2).
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::InvalidData {
                "it is not UTF-8 text: give a TOML, YAML or JSON file"
            } else {
                "check the path and its permissions"
            };
            Error::usage(format!("cannot read {}: {e}", path.display())).with_hint(hint)
        })?;
        Ok(SourceFile {
            path: path.to_path_buf(),
            text,
        })
    }

    /// Read a file the user named, or standard input for `-`.
    pub fn read_or_stdin(path: &Path) -> Result<Self> {
        if path != Path::new("-") {
            return Self::read(path);
        }
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| Error::usage(format!("cannot read stdin: {e}")))?;
        Ok(Self::inline("<stdin>", &text))
    }

    /// Text that did not come from a file (an embedded preset, a test).
    pub fn inline(name: &str, text: &str) -> Self {
        SourceFile {
            path: PathBuf::from(name),
            text: text.to_string(),
        }
    }

    /// An error pointing at a byte range of the file.
    pub fn error_at(&self, span: Option<Range<usize>>, message: impl std::fmt::Display) -> Error {
        let position = span.map(|s| line_col(&self.text, s.start));
        Error::in_file(&self.path, position, message)
    }

    /// Deserialize the file as TOML, reporting syntax and schema errors with their position.
    pub fn parse_toml<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        toml::from_str(&self.text).map_err(|e| {
            let message = e.message().trim().replace('\n', "; ");
            self.error_at(e.span(), message)
        })
    }
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
        assert_eq!(e.exit, crate::error::Exit::Usage);
        assert!(e.message.contains("/no/such/file.toml"));
    }
}
