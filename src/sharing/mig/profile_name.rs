//! MIG device profile names as configs write them: `[<C>c.]<G>g.<GB>gb[+attr[,attr]|-attr]`.
//!
//! `1g.10gb`, `1g.10gb+me`, `1g.24gb+me.all`, `1g.24gb+gfx`, `1g.24gb-me` name GPU-instance
//! profiles; a `2c.` prefix names a compute instance of 2 compute slices inside such a GPU instance
//! (`2c.3g.40gb`). The grammar and the matching rule (attributes compared as sets) are the ones
//! mig-parted uses, so every name its configs contain parses here.

use std::fmt;

/// A parsed profile name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ProfileName {
    /// Compute slices of the compute instance (`C`); equal to `slices` when no `Nc.` prefix.
    pub compute_slices: u32,
    /// Compute slices of the GPU instance (`G`).
    pub slices: u32,
    /// The memory figure of the name (`GB`).
    pub gb: u32,
    /// `+attr` attributes (`me`, `me.all`, `gfx`), sorted.
    pub attributes: Vec<String>,
    /// `-attr` attributes (`me`), sorted.
    pub without: Vec<String>,
}

impl ProfileName {
    /// Parse a profile name; the error says what is wrong with it.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        if text.is_empty() {
            return Err("a MIG profile name cannot be empty".into());
        }
        if text.trim() != text {
            return Err(format!("`{text}` has leading or trailing spaces"));
        }
        let (plus, minus) = (text.find('+'), text.find('-'));
        if plus.is_some() && minus.is_some() {
            return Err(format!("`{text}` mixes `+` and `-` attributes"));
        }
        let (fields, attrs, negative) = match plus.or(minus) {
            Some(at) => (&text[..at], Some(&text[at + 1..]), minus.is_some()),
            None => (text, None, false),
        };
        let (compute_slices, slices, gb) = parse_fields(text, fields)?;
        if compute_slices > slices {
            return Err(format!(
                "`{text}`: a compute instance of {compute_slices} slices does not fit in a {slices}-slice GPU instance"
            ));
        }
        let mut list = match attrs {
            Some(a) => parse_attributes(text, a)?,
            None => Vec::new(),
        };
        list.sort();
        let (attributes, without) = if negative {
            (Vec::new(), list)
        } else {
            (list, Vec::new())
        };
        Ok(ProfileName {
            compute_slices,
            slices,
            gb,
            attributes,
            without,
        })
    }

    /// True when the name has an `Nc.` prefix smaller than the GPU instance.
    pub(crate) fn is_partial_compute(&self) -> bool {
        self.compute_slices != self.slices
    }

    /// The GPU-instance part: the same name without the `Nc.` prefix.
    pub(crate) fn gpu_instance(&self) -> ProfileName {
        ProfileName {
            compute_slices: self.slices,
            ..self.clone()
        }
    }

    fn suffix(&self) -> String {
        if !self.attributes.is_empty() {
            format!("+{}", self.attributes.join(","))
        } else if !self.without.is_empty() {
            format!("-{}", self.without.join(","))
        } else {
            String::new()
        }
    }
}

/// `1g.10gb+me` (or `2c.3g.40gb` with a compute prefix): the canonical spelling.
impl fmt::Display for ProfileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_partial_compute() {
            write!(f, "{}c.", self.compute_slices)?;
        }
        write!(f, "{}g.{}gb{}", self.slices, self.gb, self.suffix())
    }
}

impl std::str::FromStr for ProfileName {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProfileName::parse(s)
    }
}

fn parse_fields(text: &str, fields: &str) -> Result<(u32, u32, u32), String> {
    let parts: Vec<&str> = fields.split('.').collect();
    let number = |part: &str, unit: &str| -> Result<u32, String> {
        let digits = part.strip_suffix(unit).ok_or_else(|| {
            format!("`{text}` is not a MIG profile (expected e.g. 1g.10gb or 2c.3g.40gb): `{part}` should end in `{unit}`")
        })?;
        match digits.parse::<u32>() {
            Ok(n) if n > 0 && !digits.starts_with('+') => Ok(n),
            _ => Err(format!(
                "`{text}` is not a MIG profile (expected e.g. 1g.10gb or 2c.3g.40gb): `{part}` needs a positive number before `{unit}`"
            )),
        }
    };
    match parts.as_slice() {
        [g, gb] => {
            let g = number(g, "g")?;
            Ok((g, g, number(gb, "gb")?))
        }
        [c, g, gb] => Ok((number(c, "c")?, number(g, "g")?, number(gb, "gb")?)),
        _ => Err(format!(
            "`{text}` is not a MIG profile (expected e.g. 1g.10gb, 1g.10gb+me or 2c.3g.40gb)"
        )),
    }
}

fn parse_attributes(text: &str, list: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for a in list.split(',') {
        let ok = !a.is_empty()
            && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
            && !a.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && !a.ends_with('.');
        if !ok {
            return Err(format!(
                "`{text}`: `{a}` is not a profile attribute (known: me, me.all, gfx)"
            ));
        }
        if out.iter().any(|o| o == a) {
            return Err(format!("`{text}` repeats the attribute `{a}`"));
        }
        out.push(a.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ProfileName {
        ProfileName::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn parses_every_form_mig_parted_uses() {
        let a = p("1g.10gb");
        assert_eq!((a.compute_slices, a.slices, a.gb), (1, 1, 10));
        assert!(a.attributes.is_empty() && a.without.is_empty());
        assert_eq!(p("1g.10gb+me").attributes, ["me"]);
        assert_eq!(p("1g.24gb+me.all").attributes, ["me.all"]);
        assert_eq!(p("1g.24gb+gfx").attributes, ["gfx"]);
        assert_eq!(p("1g.24gb-me").without, ["me"]);
        let c = p("2c.3g.40gb");
        assert_eq!((c.compute_slices, c.slices, c.gb), (2, 3, 40));
        assert!(c.is_partial_compute());
        assert_eq!(c.gpu_instance(), p("3g.40gb"));
        assert_eq!(p("1c.2g.12gb+me").gpu_instance(), p("2g.12gb+me"));
        assert_eq!(p("7g.141gb").gb, 141);
    }

    #[test]
    fn prints_the_canonical_name() {
        for s in [
            "1g.10gb",
            "1g.10gb+me",
            "1g.24gb+me.all",
            "1g.24gb-me",
            "2c.3g.40gb",
            "1c.2g.12gb+me",
        ] {
            assert_eq!(p(s).to_string(), s);
        }
        // A full-size compute prefix is the GPU-instance profile itself.
        assert_eq!(p("3c.3g.40gb").to_string(), "3g.40gb");
        assert_eq!(p("3c.3g.40gb"), p("3g.40gb"));
    }

    #[test]
    fn attributes_compare_as_sets() {
        assert_eq!(p("1g.10gb+me,gfx"), p("1g.10gb+gfx,me"));
        assert_ne!(p("1g.10gb+me"), p("1g.10gb"));
        assert_ne!(p("1g.24gb+me"), p("1g.24gb-me"));
    }

    #[test]
    fn rejects_malformed_names() {
        for bad in [
            "",
            " 1g.10gb",
            "1g",
            "1g.10",
            "g.10gb",
            "0g.10gb",
            "1g.0gb",
            "1x.10gb",
            "1g.10gb+",
            "1g.10gb+me,me",
            "1g.10gb+me-gfx",
            "1g.10gb+1x",
            "1g.10gb+.me",
            "4c.3g.40gb",
            "1c.2c.3g.40gb",
            "a.b.c.d",
            "1g.+5gb",
        ] {
            assert!(ProfileName::parse(bad).is_err(), "{bad:?} should not parse");
        }
        let e = ProfileName::parse("1g.10").unwrap_err();
        assert!(e.contains("`1g.10`"), "{e}");
    }
}
