//! Kubernetes resource quantities (`1`, `2k`, `1e3`, `4Ki`, `500m`) read as whole device counts.
//!
//! The grammar is the API server's (`resource.ParseQuantity`): an optional sign, digits with an
//! optional fraction, then a binary suffix (`Ki`…`Ei`), a decimal one (`n`, `u`, `m`, ``, `k`,
//! `M`…`E`) or an exponent (`e3`, `E-2`). The value is kept exact (a digit string and a power),
//! never through a float, so `4294967295`, `1e19` and `0.5` are what they say. The crates that
//! parse quantities go through `f64` and take `inf` and `1e3Ki`, which the API server refuses.
//!
//! A device count is whole and not negative; past `u64` it is [`QuantityError::TooLarge`], which
//! no node holds anyway.

use std::fmt;

/// Why a quantity is not a device count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum QuantityError {
    /// Not a quantity in the API server's grammar.
    Malformed(&'static str),
    Negative,
    /// A fraction of a device.
    NotWhole,
    /// More than `u64` counts.
    TooLarge,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuantityError::Malformed(why) => write!(f, "not a quantity: {why}"),
            QuantityError::Negative => f.write_str("negative"),
            QuantityError::NotWhole => f.write_str("not a whole number of devices"),
            QuantityError::TooLarge => f.write_str("too large to count"),
        }
    }
}

/// The most significant digits a count can have: `u128` holds 38, and anything past 20 is more
/// than a `u64` anyway.
const MAX_DIGITS: usize = 38;

/// `text` as a whole, non-negative count.
pub(crate) fn whole_count(text: &str) -> Result<u64, QuantityError> {
    let parsed = parse(text)?;
    if parsed.digits.is_empty() {
        return Ok(0);
    }
    if parsed.negative {
        return Err(QuantityError::Negative);
    }
    match parsed.power {
        Power::Ten(exponent) => decimal(
            &parsed.digits,
            exponent.saturating_sub(parsed.fraction_digits),
        ),
        Power::Two(exponent) => binary(&parsed.digits, parsed.fraction_digits, exponent),
    }
}

/// The value: `digits` (no leading or trailing zeros; empty for zero) as an integer, divided by
/// `10^fraction_digits` and scaled by `power`.
#[derive(Debug)]
struct Parsed {
    negative: bool,
    digits: String,
    fraction_digits: i64,
    power: Power,
}

#[derive(Debug, Clone, Copy)]
enum Power {
    /// × 10^n.
    Ten(i64),
    /// × 2^n (`Ki` is 10).
    Two(u32),
}

fn parse(text: &str) -> Result<Parsed, QuantityError> {
    let bytes = text.as_bytes();
    let (negative, mut pos) = match bytes.first() {
        None => return Err(QuantityError::Malformed("empty")),
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        Some(_) => (false, 0),
    };
    let digits_end = |from: usize| {
        bytes[from..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |n| from + n)
    };
    let int_end = digits_end(pos);
    let integer = &text[pos..int_end];
    pos = int_end;
    let mut fraction = "";
    if bytes.get(pos) == Some(&b'.') {
        let end = digits_end(pos + 1);
        fraction = &text[pos + 1..end];
        pos = end;
    }
    // The API server takes a sign alone as zero, but not a suffix alone.
    if pos == 0 {
        return Err(QuantityError::Malformed("no number"));
    }
    let power = suffix(&text[pos..])?;
    // The number as one digit string, without leading and trailing zeros, and how many of its
    // digits are a fraction.
    let all = format!("{integer}{fraction}");
    let significant = all.trim_start_matches('0');
    let trailing = significant.len() - significant.trim_end_matches('0').len();
    let digits = significant.trim_end_matches('0');
    if digits.len() > MAX_DIGITS {
        return Err(QuantityError::Malformed(
            "more significant digits than a count has",
        ));
    }
    Ok(Parsed {
        negative,
        digits: digits.to_string(),
        fraction_digits: fraction.len() as i64 - trailing as i64,
        power,
    })
}

/// The suffix after the number: `Ki`…`Ei`, `n`…`E`, or `e`/`E` and a signed integer.
fn suffix(s: &str) -> Result<Power, QuantityError> {
    let power = match s {
        "" => Power::Ten(0),
        "n" => Power::Ten(-9),
        "u" => Power::Ten(-6),
        "m" => Power::Ten(-3),
        "k" => Power::Ten(3),
        "M" => Power::Ten(6),
        "G" => Power::Ten(9),
        "T" => Power::Ten(12),
        "P" => Power::Ten(15),
        "E" => Power::Ten(18),
        "Ki" => Power::Two(10),
        "Mi" => Power::Two(20),
        "Gi" => Power::Two(30),
        "Ti" => Power::Two(40),
        "Pi" => Power::Two(50),
        "Ei" => Power::Two(60),
        _ => {
            let exponent = s
                .strip_prefix(['e', 'E'])
                .ok_or(QuantityError::Malformed("unknown suffix"))?;
            let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(QuantityError::Malformed("unknown suffix"));
            }
            // The API server reads the exponent as a 64-bit integer.
            let n: i64 = exponent
                .parse()
                .map_err(|_| QuantityError::Malformed("exponent out of range"))?;
            Power::Ten(n)
        }
    };
    Ok(power)
}

fn decimal(digits: &str, exponent: i64) -> Result<u64, QuantityError> {
    // `digits` has no trailing zero: a negative power leaves a fraction.
    if exponent < 0 {
        return Err(QuantityError::NotWhole);
    }
    if digits.len() as i64 + exponent > 20 {
        return Err(QuantityError::TooLarge);
    }
    let mut value: u128 = digits.parse().map_err(|_| QuantityError::TooLarge)?;
    for _ in 0..exponent {
        value = value.checked_mul(10).ok_or(QuantityError::TooLarge)?;
    }
    u64::try_from(value).map_err(|_| QuantityError::TooLarge)
}

fn binary(digits: &str, fraction_digits: i64, exponent: u32) -> Result<u64, QuantityError> {
    let value: u128 = digits.parse().map_err(|_| QuantityError::TooLarge)?;
    // digits × 10^-k (k < 0: × 10^|k|) × 2^exponent.
    let (mut value, k) = if fraction_digits < 0 {
        let mut v = value;
        for _ in 0..-fraction_digits {
            v = v.checked_mul(10).ok_or(QuantityError::TooLarge)?;
        }
        (v, 0u32)
    } else {
        (value, fraction_digits as u32)
    };
    // Whole when 5^k divides the digits and 2^k divides digits × 2^exponent.
    for _ in 0..k {
        if value % 5 != 0 {
            return Err(QuantityError::NotWhole);
        }
        value /= 5;
    }
    let twos = value.trailing_zeros() + exponent;
    if twos < k {
        return Err(QuantityError::NotWhole);
    }
    let shift = exponent as i64 - k as i64;
    let value = if shift >= 0 {
        if value.leading_zeros() < shift as u32 {
            return Err(QuantityError::TooLarge);
        }
        value << shift
    } else {
        value >> (-shift)
    };
    u64::try_from(value).map_err(|_| QuantityError::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_every_form_the_api_server_writes() {
        for (text, n) in [
            ("0", 0),
            ("1", 1),
            ("+7", 7),
            ("-0", 0),
            ("007", 7),
            ("4294967295", 4_294_967_295),
            ("4294967297", 4_294_967_297),
            ("1k", 1000),
            ("2M", 2_000_000),
            ("1e3", 1000),
            ("1E3", 1000),
            ("1E+3", 1000),
            ("1E", 1_000_000_000_000_000_000),
            ("2000m", 2),
            ("1.5k", 1500),
            ("1.0", 1),
            ("1.", 1),
            (".5k", 500),
            ("1Ki", 1024),
            ("0.5Ki", 512),
            ("1000Ki", 1_024_000),
            ("0.0009765625Ki", 1),
            ("18446744073709551615", u64::MAX),
            ("+", 0),
            (".", 0),
        ] {
            assert_eq!(whole_count(text), Ok(n), "{text}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_whole_count() {
        for (text, why) in [
            ("-1", QuantityError::Negative),
            ("-1k", QuantityError::Negative),
            ("0.5", QuantityError::NotWhole),
            ("1500m", QuantityError::NotWhole),
            ("1e-3", QuantityError::NotWhole),
            ("1n", QuantityError::NotWhole),
            ("0.1Ki", QuantityError::NotWhole),
            ("18446744073709551616", QuantityError::TooLarge),
            ("1e20", QuantityError::TooLarge),
            ("16Ei", QuantityError::TooLarge),
            ("1e99", QuantityError::TooLarge),
        ] {
            assert_eq!(whole_count(text), Err(why), "{text}");
        }
        for text in [
            "",
            "k",
            "Ki",
            "1K",
            "1Kk",
            "1e",
            "1e3k",
            "1e3Ki",
            "inf",
            "NaN",
            "1..2",
            "--1",
            "+-1",
            "1 ",
            " 1",
            "0x10",
            "1,000",
            "1e9999999999999999999",
            "١",
        ] {
            assert!(
                matches!(whole_count(text), Err(QuantityError::Malformed(_))),
                "{text:?}: {:?}",
                whole_count(text)
            );
        }
        let long = format!("1{}", "1".repeat(40));
        assert!(matches!(
            whole_count(&long),
            Err(QuantityError::Malformed(_))
        ));
        // Zeros do not count as digits: a long zero-padded count is read.
        assert_eq!(whole_count(&format!("{}3", "0".repeat(1000))), Ok(3));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any text: an answer, never a panic.
        #[test]
        fn any_text_is_answered(text in ".{0,64}") {
            let _ = whole_count(&text);
        }

        /// Texts of the grammar's own characters: an answer, and a count only when the text
        /// has the grammar's shape.
        #[test]
        fn only_the_grammar_is_counted(text in "[-+]?[0-9.]{0,24}([eEinumkKMGTP]{0,2}[-+]?[0-9]{0,4})?") {
            if whole_count(&text).is_ok() {
                let shape = regex_lite_shape(&text);
                prop_assert!(shape, "{text:?} was counted");
            }
        }

        /// A plain integer counts as itself; scaled by a suffix, as the suffix says.
        #[test]
        fn integers_count_as_themselves(n in 0u64..=u64::MAX, zeros in 0usize..4) {
            prop_assert_eq!(whole_count(&format!("{}{n}", "0".repeat(zeros))), Ok(n));
            let k = n / 1000;
            prop_assert_eq!(whole_count(&format!("{k}k")), Ok(k * 1000));
            let ki = n >> 20;
            prop_assert_eq!(whole_count(&format!("{ki}Ki")), Ok(ki << 10));
            prop_assert_eq!(whole_count(&format!("{n}e0")), Ok(n));
        }
    }

    /// The API server's shape: sign, digits with at most one dot, a known suffix.
    fn regex_lite_shape(text: &str) -> bool {
        let body = text.strip_prefix(['+', '-']).unwrap_or(text);
        let end = body
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(body.len());
        let (number, suffix) = body.split_at(end);
        let one_dot = number.matches('.').count() <= 1;
        let known = matches!(
            suffix,
            "" | "n"
                | "u"
                | "m"
                | "k"
                | "M"
                | "G"
                | "T"
                | "P"
                | "E"
                | "Ki"
                | "Mi"
                | "Gi"
                | "Ti"
                | "Pi"
                | "Ei"
        ) || suffix
            .strip_prefix(['e', 'E'])
            .map(|e| e.strip_prefix(['+', '-']).unwrap_or(e))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        one_dot && known && (text.len() > body.len() || !number.is_empty())
    }
}
