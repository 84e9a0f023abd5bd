//! Parsing and printing of byte sizes: `4096`, `64KiB`, `256MB`, `1GiB`, `256M`; the system's
//! memory sizes (`/proc/meminfo`).

use crate::error::{Error, Result};

/// Parses a size: an integer number of bytes, or a number with a unit.
///
/// Units: `K`/`KiB`, `M`/`MiB`, `G`/`GiB`, `T`/`TiB` are powers of 1024; `KB`, `MB`, `GB`, `TB`
/// are powers of 1000. Case-insensitive; a trailing `B` alone means bytes. Fractions are
/// allowed with a unit (`1.5GiB`).
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(Error::invalid(format!("bad size '{s}': a size is not negative")));
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let mult: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(Error::invalid(format!("bad size '{s}': unknown unit '{unit}'"))),
    };
    if num.is_empty() {
        return Err(Error::invalid(format!("bad size '{s}': no number")));
    }
    if num.contains('.') {
        let v: f64 = num.parse().map_err(|_| Error::invalid(format!("bad size '{s}'")))?;
        let bytes = v * mult as f64;
        // 2^64 as f64: the first value `as u64` would saturate.
        if bytes >= u64::MAX as f64 {
            return Err(Error::invalid(format!("size '{s}' overflows")));
        }
        Ok(bytes as u64)
    } else {
        let v: u64 = num.parse().map_err(|_| Error::invalid(format!("bad size '{s}'")))?;
        v.checked_mul(mult).ok_or_else(|| Error::invalid(format!("size '{s}' overflows")))
    }
}

/// Formats a byte count with a binary unit, e.g. `1.5 GiB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

/// A value of `/proc/meminfo` (`MemAvailable`, `HugePages_Total`...) in bytes: `kB` lines
/// scaled, counts as they are; `None` when the file or the key is missing.
pub fn meminfo(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        let mut it = rest.split_whitespace();
        let v: u64 = it.next()?.parse().ok()?;
        Some(if it.next() == Some("kB") { v * 1024 } else { v })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("64KiB").unwrap(), 65536);
        assert_eq!(parse_size("256MB").unwrap(), 256_000_000);
        assert_eq!(parse_size("256M").unwrap(), 256 << 20);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("1.5k").unwrap(), 1536);
        assert!(parse_size("12XB").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("-5").unwrap_err().to_string().contains("a size is not negative"));
        // Past 2^64 bytes with a fraction too (it saturated to 16 EiB silently).
        assert!(parse_size("20000000.5TiB").unwrap_err().to_string().contains("overflows"));
        assert!(parse_size("99999999999999999999TiB").is_err());
        assert_eq!(parse_size("0.5KiB").unwrap(), 512);
    }

    #[test]
    fn formats() {
        assert_eq!(format_size(100), "100 B");
        assert_eq!(format_size(1536), "1.5 KiB");
    }

    #[test]
    fn meminfo_reads_kb_and_counts() {
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(meminfo("MemTotal").is_some_and(|m| m > 1 << 20));
            assert!(meminfo("HugePages_Total").is_some());
        }
        assert_eq!(meminfo("NoSuchKey"), None);
    }
}
