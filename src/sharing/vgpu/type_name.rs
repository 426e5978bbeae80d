//! vGPU type names as NVIDIA writes them: `A100-4C`, `T4-16Q`, `H200X-1-18C`, `A100-1-5CME`.
//!
//! Time-sliced types are `<GPU>[-word]*-<GB><S>`; MIG-backed types are `<GPU>-<g>-<GB><S>[suffix]`
//! with `g` GPU-instance slices and a suffix `ME`, `NOME`, `MEALL` or `GFX`. `S` is the series
//! (C compute, Q workstation, B PC, A apps); `0` GB means 512 MiB. sysfs and NVML print the full
//! name (`NVIDIA A100-4C`, `GRID T4-16Q`): configs use its last word.

use std::fmt;

/// The vGPU series letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Series {
    /// Virtual applications.
    A,
    /// Virtual PC.
    B,
    /// Compute (AI / HPC).
    C,
    /// Virtual workstation.
    Q,
}

/// A parsed vGPU type name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeName {
    /// The name as written, e.g. `A100-1-5CME`.
    pub text: String,
    /// MIG-backed types: GPU-instance slices (`1` in `A100-1-5C`); `None` for time-sliced types.
    pub gpu_slices: Option<u32>,
    /// Framebuffer in GB as the name states it (`0` means 512 MiB).
    pub framebuffer_gb: u32,
    pub series: Series,
    /// MIG attribute suffix: `ME`, `NOME`, `MEALL` or `GFX`.
    pub suffix: Option<String>,
}

const SUFFIXES: [&str; 4] = ["MEALL", "NOME", "ME", "GFX"];

/// The short name configs use: the last word of the name sysfs or NVML prints.
pub(crate) fn short_name(full: &str) -> &str {
    full.split_whitespace().last().unwrap_or(full)
}

impl TypeName {
    pub(crate) fn parse(text: &str) -> Result<TypeName, String> {
        let bad = |why: &str| {
            format!("`{text}` is not a vGPU type name ({why}; e.g. A100-4C, T4-16Q, H200X-1-18C)")
        };
        if text.is_empty() || text.chars().any(char::is_whitespace) {
            return Err(bad("no spaces allowed"));
        }
        let parts: Vec<&str> = text.split('-').collect();
        if parts.len() < 2 || parts.iter().any(|p| p.is_empty()) {
            return Err(bad("expected <GPU>-<GB><series>"));
        }
        if !parts[0].chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(bad("the GPU part is letters and digits"));
        }
        let last = parts[parts.len() - 1];
        let digits = last.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return Err(bad("the last part starts with the framebuffer size in GB"));
        }
        let framebuffer_gb: u32 = last[..digits]
            .parse()
            .map_err(|_| bad("framebuffer size out of range"))?;
        let rest = &last[digits..];
        let mut chars = rest.chars();
        let series = match chars.next() {
            Some('A') => Series::A,
            Some('B') => Series::B,
            Some('C') => Series::C,
            Some('Q') => Series::Q,
            _ => return Err(bad("the series after the size is A, B, C or Q")),
        };
        let suffix = chars.as_str();
        // A MIG-backed name has a one-digit slice count right before the size.
        let slices = (parts.len() >= 3)
            .then(|| parts[parts.len() - 2])
            .filter(|p| p.len() == 1 && p.as_bytes()[0].is_ascii_digit() && *p != "0")
            .and_then(|p| p.parse::<u32>().ok());
        if !suffix.is_empty() && (slices.is_none() || !SUFFIXES.contains(&suffix)) {
            return Err(bad(
                "only MIG-backed types take a suffix (ME, NOME, MEALL or GFX)",
            ));
        }
        Ok(TypeName {
            text: text.to_string(),
            gpu_slices: slices,
            framebuffer_gb,
            series,
            suffix: (!suffix.is_empty()).then(|| suffix.to_string()),
        })
    }

    pub(crate) fn is_mig_backed(&self) -> bool {
        self.gpu_slices.is_some()
    }

    /// Framebuffer in MiB as the name states it.
    pub(crate) fn framebuffer_mib(&self) -> u64 {
        match self.framebuffer_gb {
            0 => 512,
            gb => u64::from(gb) * 1024,
        }
    }

    /// The name without its MIG attribute suffix (`A100-1-5CME` → `A100-1-5C`), when it has one.
    /// vgpu-device-manager falls back to it when a host does not list the suffixed type.
    pub(crate) fn without_suffix(&self) -> Option<String> {
        let suffix = self.suffix.as_deref()?;
        self.text.strip_suffix(suffix).map(str::to_string)
    }
}

impl fmt::Display for TypeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_sliced_names() {
        let t = TypeName::parse("A100-4C").unwrap();
        assert_eq!(t.gpu_slices, None);
        assert_eq!(t.framebuffer_mib(), 4096);
        assert_eq!(t.series, Series::C);
        let t = TypeName::parse("T4-16Q").unwrap();
        assert_eq!((t.framebuffer_gb, t.series), (16, Series::Q));
        assert_eq!(TypeName::parse("M60-0B").unwrap().framebuffer_mib(), 512);
        assert!(!TypeName::parse("A100D-80C").unwrap().is_mig_backed());
        // Extra words before the size are part of the GPU name.
        assert!(!TypeName::parse("RTX6000-Ada-24Q").unwrap().is_mig_backed());
    }

    #[test]
    fn mig_backed_names() {
        let t = TypeName::parse("H200X-1-18C").unwrap();
        assert_eq!(t.gpu_slices, Some(1));
        assert_eq!(t.framebuffer_gb, 18);
        let t = TypeName::parse("A100-1-5CME").unwrap();
        assert_eq!(t.suffix.as_deref(), Some("ME"));
        assert_eq!(t.without_suffix().as_deref(), Some("A100-1-5C"));
        assert_eq!(
            TypeName::parse("DC-1-24QGFX").unwrap().suffix.as_deref(),
            Some("GFX")
        );
        assert_eq!(
            TypeName::parse("A100-7-40CMEALL")
                .unwrap()
                .suffix
                .as_deref(),
            Some("MEALL")
        );
        assert_eq!(TypeName::parse("A100-4C").unwrap().without_suffix(), None);
    }

    #[test]
    fn malformed_names_are_rejected_with_the_value() {
        for bad in [
            "",
            "A100",
            "A100-",
            "A100-C",
            "A100-4X",
            "A100-4CME",
            "A100 4C",
            "-4C",
            "A100-1-5CZZ",
            "A_1-4C",
        ] {
            let e = TypeName::parse(bad).unwrap_err();
            assert!(e.contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn short_names_drop_the_vendor_prefix() {
        assert_eq!(short_name("NVIDIA A100-4C"), "A100-4C");
        assert_eq!(short_name("GRID T4-16Q"), "T4-16Q");
        assert_eq!(short_name("H200X-1-18C"), "H200X-1-18C");
    }
}
