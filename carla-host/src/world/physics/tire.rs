//! A tire's longitudinal force over its slip, as PhysX's default tire
//! (the one CARLA's vehicles drive on) shapes it.
//!
//! Slip is how much faster the tire's tread turns than the road passes
//! under it, over the road's speed: `s = (ω·r − v) / max(|v|, 4 m/s)`
//! (PhysX's minimum slip denominator keeps a car at rest finite). The
//! force rises with slip at `long_stiff_value · g` newtons per unit slip
//! (the tire's stiffness) and levels off at the tire's grip, `μ · load`:
//! `F = grip · (1 − (1 − K/3)³)` for `K = stiffness · |s| / grip` up to 3,
//! `grip` past it. A stiff tire reaches its grip at a small slip; a soft
//! one has to spin to push the car, and where the engine's speed limit
//! stops the wheel spinning faster it pushes no more.

/// PhysX's minimum longitudinal slip denominator, m/s.
pub(crate) const MIN_SLIP_SPEED: f32 = 4.0;

/// Longitudinal slip of a wheel of radius `r` turning at `omega` (rad/s)
/// over a road passing at `v` (m/s, both forward positive).
pub(crate) fn slip(omega: f32, r: f32, v: f32) -> f32 {
    (omega * r - v) / v.abs().max(MIN_SLIP_SPEED)
}

/// The tire's forward force at slip `s`, N: `stiffness` N per unit slip,
/// at most `grip` N (0 for a wheel off the ground).
pub(crate) fn force(stiffness: f32, grip: f32, s: f32) -> f32 {
    if grip <= 0.0 {
        return 0.0;
    }
    let k = (stiffness * s.abs() / grip).min(3.0);
    let rest = 1.0 - k / 3.0;
    (grip * (1.0 - rest * rest * rest)).copysign(s)
}

/// The slip at which the tire gives forward force `f` (the inverse of
/// [`force`], `f` taken at most `grip`), unit slip.
pub(crate) fn slip_for(stiffness: f32, grip: f32, f: f32) -> f32 {
    if grip <= 0.0 || stiffness <= 0.0 {
        return 0.0;
    }
    let y = (f.abs() / grip).min(1.0);
    (3.0 * (1.0 - (1.0 - y).cbrt()) * grip / stiffness).copysign(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_rises_with_the_stiffness_and_levels_off_at_the_grip() {
        // Small slip: stiffness times slip.
        assert!((force(9810.0, 5000.0, 0.01) - 98.1).abs() < 1.0);
        assert!((force(9810.0, 5000.0, -0.01) + 98.1).abs() < 1.0);
        // Past K = 3 the grip, no more.
        assert_eq!(force(9810.0, 5000.0, 10.0), 5000.0);
        assert_eq!(force(9810.0, 0.0, 1.0), 0.0);
        // A softer tire gives less at the same slip.
        assert!(force(98.1, 5000.0, 0.5) < force(9810.0, 5000.0, 0.5) / 50.0);
        let mut last = 0.0;
        for i in 1..100 {
            let f = force(9810.0, 5000.0, i as f32 * 0.02);
            assert!(f >= last && f <= 5000.0);
            last = f;
        }
    }

    #[test]
    fn slip_for_inverts_force() {
        for f in [-4999.0, -1200.0, -1.0, 0.0, 3.0, 800.0, 4500.0] {
            let s = slip_for(9810.0, 5000.0, f);
            assert!((force(9810.0, 5000.0, s) - f).abs() < 0.5, "{f} {s}");
        }
        // Asked for more than the grip: the slip where the grip is
        // reached.
        let s = slip_for(9810.0, 5000.0, 9000.0);
        assert!((s - 3.0 * 5000.0 / 9810.0).abs() < 1e-4);
        assert_eq!(slip(10.0, 0.3, 0.0), 0.75);
        assert_eq!(slip(100.0 / 3.0, 0.3, 10.0), 0.0);
        assert_eq!(slip(0.0, 0.3, 20.0), -1.0);
    }
}
