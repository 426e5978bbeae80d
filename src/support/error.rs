//! The error every command returns, and the exit-code table (docs/ci-provisioning.md).

use std::fmt;
use std::path::Path;

/// Process exit codes. They are a contract with scripts: never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    /// An operation failed.
    Failed = 1,
    /// Invalid usage or input.
    Usage = 2,
    /// The node differs from the desired state, or verification failed.
    Differs = 3,
    /// No NVIDIA driver, NVML or CUDA.
    NoDriver = 4,
    /// A reboot is required to finish.
    RebootRequired = 5,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A user-facing error: what failed, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub exit: Exit,
    pub message: String,
    pub hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Error {
            exit,
            message: message.into(),
            hint: None,
        }
    }

    /// Invalid usage or input (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Exit::Usage, message)
    }

    /// An operation failed (exit 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(Exit::Failed, message)
    }

    /// No driver, NVML or CUDA (exit 4).
    pub fn no_driver(message: impl Into<String>) -> Self {
        Self::new(Exit::NoDriver, message)
    }

    /// Bad input found in a file: `error: FILE:LINE:COL: message`.
    pub fn in_file(
        path: &Path,
        position: Option<(usize, usize)>,
        message: impl fmt::Display,
    ) -> Self {
        let location = match position {
            Some((line, column)) => format!("{}:{line}:{column}", path.display()),
            None => path.display().to_string(),
        };
        Self::usage(format!("{location}: {message}"))
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Prefix the message with what was being done, keeping exit code and hint.
    pub fn context(mut self, what: impl fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Line and column (1-based) of a byte offset in a text, for file:line:col messages.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let text = "a = 1\nbb = \"x\"\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 6), (2, 1));
        assert_eq!(line_col(text, 11), (2, 6));
        assert_eq!(line_col(text, 999), (3, 1));
    }

    #[test]
    fn in_file_names_the_location() {
        let e = Error::in_file(Path::new("n.toml"), Some((3, 7)), "unknown model `X`");
        assert_eq!(e.exit, Exit::Usage);
        assert_eq!(e.message, "n.toml:3:7: unknown model `X`");
    }
}
