//! Number and date formats of CARLA's query output (C++ streams).

/// C++ streams' default float format, printf's `%.6g`: six significant
/// digits, trailing zeros dropped, the exponent form below 1e-4 and from
/// 1e6 on.
pub(crate) fn g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rounded to six significant digits first: the exponent is the
    // rounded value's.
    let e = format!("{v:.5e}");
    let (mantissa, exp) = e.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("a number");
    if !(-4..6).contains(&exp) {
        let m = strip(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        strip(&format!("{v:.decimals$}")).to_owned()
    }
}

/// [`g`] of an f32 (widened, as a stream inserts it).
pub(crate) fn g32(v: f32) -> String {
    g(f64::from(v))
}

fn strip(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `strftime("%x %X")` in the C locale, in the server's time zone:
/// `MM/DD/YY HH:MM:SS`.
pub(crate) fn date(unix: i64) -> String {
    let (y, mo, d, h, mi, s) = local(unix);
    format!(
        "{mo:02}/{d:02}/{:02} {h:02}:{mi:02}:{s:02}",
        y.rem_euclid(100)
    )
}

#[cfg(unix)]
fn local(unix: i64) -> (i64, u32, u32, u32, u32, u32) {
    let t = unix as libc::time_t;
    // SAFETY: `tm` is plain data; zeroed is a valid value, and
    // `localtime_r` writes it from `t`, both pointers live for the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
    if !ok {
        return utc(unix);
    }
    (
        i64::from(tm.tm_year) + 1900,
        (tm.tm_mon + 1) as u32,
        tm.tm_mday as u32,
        tm.tm_hour as u32,
        tm.tm_min as u32,
        tm.tm_sec as u32,
    )
}

/// Windows: UTC (the library does not read the time zone there).
#[cfg(not(unix))]
fn local(unix: i64) -> (i64, u32, u32, u32, u32, u32) {
    utc(unix)
}

/// The civil date of a Unix time, UTC.
fn utc(unix: i64) -> (i64, u32, u32, u32, u32, u32) {
    let secs = unix.rem_euclid(86_400) as u32;
    let (y, m, d) = crate::log::civil_from_days(unix.div_euclid(86_400));
    (y, m, d, secs / 3600, secs / 60 % 60, secs % 60)
}

/// A vector as CARLA prints one: `(x, y, z)`, each `%g`.
pub(crate) fn v3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", g32(v[0]), g32(v[1]), g32(v[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_is_printf_percent_g() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "-0"),
            (1.5, "1.5"),
            (f64::from(0.1f32), "0.1"),
            (123456.7, "123457"),
            (1234567.0, "1.23457e+06"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (382.0012, "382.001"),
            (1e20, "1e+20"),
            (60.3753, "60.3753"),
            (-1.0, "-1"),
            (999999.5, "1e+06"),
            (0.05000000074505806, "0.05"),
            (100.0, "100"),
        ];
        for (v, want) in cases {
            assert_eq!(g(*v), *want, "{v}");
        }
    }

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(utc(1_550_745_980), (2019, 2, 21, 10, 46, 20));
        assert_eq!(utc(951_782_400), (2000, 2, 29, 0, 0, 0));
    }
}
