//! A vehicle's engine, clutch and gearbox from CARLA's
//! `VehiclePhysicsControl`: how much torque the wheels get from the
//! throttle at the speed they turn.
//!
//! In gear the engine turns with the wheels (engine speed = wheel speed ×
//! `G`, the gear's ratio times the final ratio; the wheels turn as fast as
//! the tires' slip lets them, see [`Gearbox::step`]) and gives the torque curve
//! (Nm over rpm) times the throttle, less its friction: a damping rate
//! (N·m·s/rad) times its speed, the rate going from the zero-throttle
//! clutch-engaged one off the throttle to the full-throttle one at full
//! throttle, as PhysX interpolates it, seen through the clutch (`k · d /
//! (k + d)` for a clutch of strength `k`: the engine slips against the
//! wheels). Off the throttle that friction brakes the car (engine braking,
//! stronger in the lower gears): with CARLA's defaults, 2 and 10, about
//! 1.7 · `G²` · ω of the wheels, N·m. At `max_rpm` it gives no more torque.
//! The wheels get `G` times that; the engine's inertia (`moi`) turns with
//! them, so the car accelerates as if `moi · G² / r²` heavier (see
//! [`Gearbox::inertia_mass`]). The automatic gearbox (`use_gear_autobox`)
//! shifts up above `up_ratio · max_rpm` and down below `down_ratio ·
//! max_rpm` (of the road's speed, not of spinning wheels); a shift leaves
//! the engine free for `gear_switch_time` seconds (no drive; it spins down
//! on the clutch-disengaged damping rate).
//! Reverse uses a ratio of 4 (CARLA's controls carry no reverse gears).

/// What the powertrain reads of a physics control, made safe: every value
/// finite and in the range a physics engine can integrate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Engine {
    /// `(rpm, Nm)`, rpm increasing, at least one point.
    pub torque_curve: Vec<[f32; 2]>,
    pub max_rpm: f32,
    pub moi: f32,
    pub damping_full: f32,
    pub damping_engaged: f32,
    pub damping_disengaged: f32,
    pub autobox: bool,
    pub switch_time: f32,
    pub clutch: f32,
    pub final_ratio: f32,
    /// `(ratio, down, up)`; at least one gear.
    pub gears: Vec<[f32; 3]>,
}

/// CARLA's reverse gear ratio (PhysX's default).
const REVERSE_RATIO: f32 = 4.0;
/// How long the automatic gearbox stays in a gear before it shifts again,
/// seconds (PhysX's autobox latency is 2 s): CARLA's default gears step by
/// more than the up and down points are apart, so without it a car at a
/// steady speed would hunt between two gears.
const AUTOBOX_LATENCY: f32 = 1.0;
/// Down only where the lower gear stays this far under its up point.
const DOWN_MARGIN: f32 = 0.9;

/// `x` if finite, else `default`, then clamped to `lo..=hi`.
pub(crate) fn clean(x: f32, default: f32, lo: f32, hi: f32) -> f32 {
    if x.is_finite() {
        x.clamp(lo, hi)
    } else {
        default
    }
}

impl Engine {
    /// The engine of `c`: non-finite or out-of-range values clamped (a
    /// ratio at least 0.01, an inertia at least 0.01 kg·m², rpm at least
    /// 100, curves sorted by rpm); an empty curve or gear list gets
    /// CARLA's default.
    pub(crate) fn of(c: &carla_server::rpc::VehiclePhysicsControl) -> Engine {
        let mut curve: Vec<[f32; 2]> = c
            .torque_curve
            .iter()
            .filter(|p| p[0].is_finite() && p[1].is_finite())
            .map(|p| [p[0].clamp(0.0, 1e5), p[1].clamp(0.0, 1e5)])
            .collect();
        curve.sort_by(|a, b| a[0].total_cmp(&b[0]));
        if curve.is_empty() {
            curve = vec![[0.0, 500.0], [5000.0, 500.0]];
        }
        let mut gears: Vec<[f32; 3]> = c
            .forward_gears
            .iter()
            .map(|g| {
                [
                    clean(g.ratio, 1.0, 0.01, 100.0),
                    clean(g.down_ratio, 0.5, 0.0, 1.0),
                    clean(g.up_ratio, 0.65, 0.0, 1.0),
                ]
            })
            .collect();
        if gears.is_empty() {
            gears = vec![[2.85, 0.5, 0.65], [2.02, 0.5, 0.65], [1.35, 0.5, 0.65]];
        }
        Engine {
            torque_curve: curve,
            max_rpm: clean(c.max_rpm, 5000.0, 100.0, 1e5),
            moi: clean(c.moi, 1.0, 0.01, 1e3),
            damping_full: clean(c.damping_rate_full_throttle, 0.15, 0.0, 100.0),
            damping_engaged: clean(c.damping_rate_zero_throttle_clutch_engaged, 2.0, 0.0, 100.0),
            damping_disengaged: clean(
                c.damping_rate_zero_throttle_clutch_disengaged,
                0.35,
                0.0,
                100.0,
            ),
            autobox: c.use_gear_autobox,
            switch_time: clean(c.gear_switch_time, 0.5, 0.0, 10.0),
            clutch: clean(c.clutch_strength, 10.0, 0.01, 1e3),
            final_ratio: clean(c.final_ratio, 4.0, 0.01, 100.0),
            gears,
        }
    }

    /// The engine's friction at `throttle` as the wheels feel it through
    /// the clutch, N·m·s/rad: the damping rate interpolated between the
    /// zero-throttle (clutch engaged) and the full-throttle ones, in series
    /// with the clutch's strength.
    pub(crate) fn friction(&self, throttle: f32) -> f32 {
        let d = self.damping_engaged + (self.damping_full - self.damping_engaged) * throttle;
        self.clutch * d / (self.clutch + d).max(1e-6)
    }

    /// The curve's torque at `rpm` (linear between points, flat outside).
    pub(crate) fn torque_at(&self, rpm: f32) -> f32 {
        curve_at(&self.torque_curve, rpm)
    }
}

/// A piecewise-linear curve's value at `x`, flat beyond its ends; 0 for no
/// points.
pub(crate) fn curve_at(curve: &[[f32; 2]], x: f32) -> f32 {
    let (Some(first), Some(last)) = (curve.first(), curve.last()) else {
        return 0.0;
    };
    if x <= first[0] {
        return first[1];
    }
    if x >= last[0] {
        return last[1];
    }
    for w in curve.windows(2) {
        let (a, b) = (w[0], w[1]);
        if x <= b[0] {
            let span = b[0] - a[0];
            return if span > 0.0 {
                a[1] + (b[1] - a[1]) * (x - a[0]) / span
            } else {
                b[1]
            };
        }
    }
    last[1]
}

const RPM: f32 = 60.0 / std::f32::consts::TAU;

/// The engine speed (rad/s) where `gap` (what the engine gives the wheels
/// less what the road takes, decreasing with the speed) is zero, from the
/// rolling speed `rolling` (≥ 0): above it when the engine drives, down
/// to rest when it brakes; at most a little past `max` (where the engine
/// gives nothing). Regula falsi (Illinois), to 0.01 rad/s.
fn balance(gap: impl Fn(f32) -> f32, rolling: f32, max: f32) -> f32 {
    let g0 = gap(rolling);
    if g0 == 0.0 {
        return rolling;
    }
    let (mut a, mut b, mut fa, mut fb) = if g0 > 0.0 {
        let top = rolling.max(max) * 1.05 + 1.0;
        let ft = gap(top);
        if ft >= 0.0 {
            return top;
        }
        (rolling, top, g0, ft)
    } else {
        let f0 = gap(0.0);
        if f0 <= 0.0 {
            return 0.0;
        }
        (0.0, rolling, f0, g0)
    };
    // Invariant: fa > 0 > fb, the root between a and b.
    let mut side = 0;
    for _ in 0..40 {
        let c = (a * fb - b * fa) / (fb - fa);
        let c = if c.is_finite() { c } else { 0.5 * (a + b) };
        let fc = gap(c);
        if fc > 0.0 {
            (a, fa) = (c, fc);
            if side == 1 {
                fb *= 0.5;
            }
            side = 1;
        } else if fc < 0.0 {
            (b, fb) = (c, fc);
            if side == -1 {
                fa *= 0.5;
            }
            side = -1;
        } else {
            return c;
        }
        if b - a < 0.01 {
            break;
        }
    }
    0.5 * (a + b)
}

/// The powertrain's state between steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gearbox {
    /// Forward gear index (0 = first), or -1 for reverse.
    pub gear: i32,
    /// Engine speed, rad/s.
    pub omega: f32,
    /// Seconds left of a shift (the clutch is open meanwhile).
    pub shifting: f32,
    /// Seconds since the last shift ended.
    pub in_gear_for: f32,
    /// The driver chose neutral: no drive, the engine free.
    pub neutral: bool,
    /// The driver picks the gear (`manual_gear_shift`): no autobox.
    pub manual: bool,
}

impl Default for Gearbox {
    fn default() -> Gearbox {
        Gearbox {
            gear: 0,
            omega: 0.0,
            shifting: 0.0,
            in_gear_for: f32::INFINITY,
            neutral: false,
            manual: false,
        }
    }
}

impl Gearbox {
    /// The mass the engine's inertia adds to a car on wheels of radius
    /// `r` (m) in the current gear, kg.
    pub(crate) fn inertia_mass(&self, e: &Engine, r: f32) -> f32 {
        let g = self.ratio(e);
        e.moi * g * g / (r * r).max(1e-4)
    }

    /// Engine speed, rpm.
    #[cfg(test)]
    pub(crate) fn rpm(&self) -> f32 {
        self.omega * RPM
    }

    /// The gear as CARLA reports it (1 = first, 0 = neutral, -1 =
    /// reverse).
    pub(crate) fn carla_gear(&self) -> i32 {
        if self.gear < 0 {
            -1
        } else if self.neutral {
            0
        } else {
            self.gear + 1
        }
    }

    /// The driver's choice of gear: `Some(g)` under `manual_gear_shift`,
    /// CARLA's numbers (-1 reverse, 0 neutral, 1 first, ...; past the top
    /// gear the top one), taken at once as CARLA's PhysX vehicles take a
    /// manual shift (no `gear_switch_time`, no autobox); `None`: the
    /// automatic, from the gear it is in.
    pub(crate) fn select(&mut self, e: &Engine, manual: Option<i32>) {
        self.manual = manual.is_some();
        let Some(g) = manual else {
            self.neutral = false;
            return;
        };
        self.neutral = g == 0;
        let top = e.gears.len() as i32 - 1;
        let want = if g < 0 { -1 } else { (g - 1).clamp(0, top) };
        if want != self.gear {
            self.gear = want;
            self.shifting = 0.0;
            self.in_gear_for = 0.0;
        }
    }

    /// One step of `dt`: the engine under `throttle` (0..1) with the
    /// wheels rolling at `wheel_omega` rad/s (forward positive), in reverse
    /// when `reverse`. `road(ω)` is the torque the road takes back from
    /// the driven wheels turning at ω (N·m, from their tires' slip); with
    /// it the engine and wheels turn at the speed where what the engine
    /// gives is what the tires take (a soft or unloaded tire lets them
    /// spin up), without it (or with the wheels turning the engine
    /// backwards) they roll with the road. Returns the torque the driven
    /// wheels get in all (N·m, positive drives forward) and, when the
    /// road set it, their speed (rad/s).
    pub(crate) fn step(
        &mut self,
        e: &Engine,
        throttle: f32,
        reverse: bool,
        wheel_omega: f32,
        road: Option<&dyn Fn(f32) -> f32>,
        dt: f32,
    ) -> (f32, Option<f32>) {
        let throttle = clean(throttle, 0.0, 0.0, 1.0);
        let wheel_omega = clean(wheel_omega, 0.0, -1e4, 1e4);
        if !self.manual && reverse != (self.gear < 0) {
            self.gear = if reverse { -1 } else { 0 };
            self.shifting = 0.0;
        }
        let ratio = self.ratio(e);
        let in_gear = self.shifting <= 0.0 && !self.neutral;
        self.shifting = (self.shifting - dt).max(0.0);
        if !in_gear {
            // Shifting or in neutral: the engine spins down on its own
            // (semi-implicit), the wheels roll free.
            let inertia = e.moi / dt;
            self.omega = inertia * self.omega / (inertia + e.damping_disengaged);
            return (0.0, None);
        }
        self.in_gear_for += dt;
        // In gear the engine turns with the wheels; its friction takes its
        // share of the curve's torque and, off the throttle, brakes them.
        let engine = |u: f32| {
            let drive = if u * RPM < e.max_rpm {
                throttle * e.torque_at(u * RPM)
            } else {
                0.0
            };
            drive - e.friction(throttle) * u
        };
        // The engine speed the rolling wheels turn it at (wheels turning
        // against the gear, rolling back in first, leave it at rest).
        let rolling = ratio * wheel_omega;
        let mut wheels = None;
        self.omega = match road {
            Some(road) if rolling >= 0.0 => {
                let gap = |u: f32| ratio.abs() * engine(u) - ratio.signum() * road(u / ratio);
                let u = balance(gap, rolling, e.max_rpm / RPM);
                wheels = Some(u / ratio);
                u
            }
            _ => rolling.max(0.0),
        };
        let torque = engine(self.omega);
        if e.autobox && !self.manual && self.gear >= 0 && self.in_gear_for >= AUTOBOX_LATENCY {
            // On the road's speed, not the spinning wheels'.
            self.shift(e, rolling);
        }
        (torque * ratio, wheels)
    }

    /// The gear's ratio times the final ratio (negative in reverse).
    pub(crate) fn ratio(&self, e: &Engine) -> f32 {
        if self.gear < 0 {
            -REVERSE_RATIO * e.final_ratio
        } else {
            e.gears[(self.gear as usize).min(e.gears.len() - 1)][0] * e.final_ratio
        }
    }

    /// The automatic gearbox's choice at the wheel-side engine speed
    /// `target` (rad/s).
    fn shift(&mut self, e: &Engine, target: f32) {
        let rpm = target.abs() * RPM / 1.0;
        let g = self.gear as usize;
        let [_, _, up] = e.gears[g.min(e.gears.len() - 1)];
        if g + 1 < e.gears.len() && rpm > up * e.max_rpm {
            self.gear += 1;
        } else if g > 0 {
            let [_, down, _] = e.gears[g];
            let lower = e.gears[g - 1][0] / e.gears[g][0];
            let room = DOWN_MARGIN * e.gears[g - 1][2] * e.max_rpm;
            if rpm < down * e.max_rpm && rpm * lower < room {
                self.gear -= 1;
            } else {
                return;
            }
        } else {
            return;
        }
        self.shifting = e.switch_time;
        self.in_gear_for = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carla_server::rpc::VehiclePhysicsControl;
    use carla_server::types::Vector3D;

    fn engine() -> Engine {
        Engine::of(&VehiclePhysicsControl::default_for(
            Vector3D {
                x: 2.3,
                y: 1.0,
                z: 0.75,
            },
            4,
        ))
    }

    #[test]
    fn curves_interpolate_and_hold_their_ends() {
        let c = [[0.0, 100.0], [1000.0, 300.0], [2000.0, 200.0]];
        assert_eq!(curve_at(&c, -5.0), 100.0);
        assert_eq!(curve_at(&c, 500.0), 200.0);
        assert_eq!(curve_at(&c, 1500.0), 250.0);
        assert_eq!(curve_at(&c, 9e9), 200.0);
        assert_eq!(curve_at(&[], 5.0), 0.0);
    }

    #[test]
    fn full_throttle_from_rest_drives_forward_in_first() {
        let e = engine();
        let mut g = Gearbox::default();
        let mut torque = 0.0;
        for _ in 0..30 {
            torque = g.step(&e, 1.0, false, 0.0, None, 0.01).0;
        }
        assert!(torque > 1000.0, "{torque}");
        assert_eq!(g.carla_gear(), 1);
        // Off the throttle at speed the engine brakes the wheels, by its
        // speed and the gear (CARLA's 2 and 10: k·d/(k+d) = 1.67); a
        // little throttle brakes less, at rest nothing brakes.
        let mut idle = Gearbox::default();
        let ratio = 2.85 * 4.0;
        let braking = idle.step(&e, 0.0, false, 10.0, None, 0.01).0;
        assert!(
            (braking + 1.667 * ratio * ratio * 10.0).abs() < 5.0,
            "{braking}"
        );
        let mut part = Gearbox::default();
        let light = part.step(&e, 0.1, false, 10.0, None, 0.01).0;
        assert!(braking < light && light < 0.0, "{braking} {light}");
        assert_eq!(
            Gearbox::default().step(&e, 0.0, false, 0.0, None, 0.01).0,
            0.0
        );
        // Reverse drives backwards.
        let mut r = Gearbox::default();
        let mut back = 0.0;
        for _ in 0..30 {
            back = r.step(&e, 1.0, true, 0.0, None, 0.01).0;
        }
        assert!(back < -1000.0, "{back}");
        assert_eq!(r.carla_gear(), -1);
    }

    #[test]
    fn the_autobox_shifts_up_with_speed_and_down_again() {
        let e = engine();
        let mut g = Gearbox::default();
        // Wheels turning fast: the engine is dragged past the up point.
        for _ in 0..400 {
            g.step(&e, 1.0, false, 150.0, None, 0.01);
        }
        assert!(g.gear >= 3, "{g:?}");
        for _ in 0..600 {
            g.step(&e, 0.0, false, 5.0, None, 0.01);
        }
        assert_eq!(g.gear, 0, "{g:?}");
    }

    #[test]
    fn a_manual_gearbox_stays_in_the_drivers_gear() {
        let e = engine();
        let drive = |gear: i32, wheel_omega: f32| {
            let mut g = Gearbox::default();
            let mut t = 0.0;
            for _ in 0..300 {
                g.select(&e, Some(gear));
                t = g.step(&e, 1.0, false, wheel_omega, None, 0.01).0;
            }
            (t, g)
        };
        let (first, g1) = drive(1, 0.0);
        let (third, g3) = drive(3, 0.0);
        assert_eq!((g1.carla_gear(), g3.carla_gear()), (1, 3));
        // Third gives the wheels 1.35/2.85 of first's torque.
        assert!(
            (third / first - 1.35 / 2.85).abs() < 0.01,
            "{first} {third}"
        );
        // Wheels fast enough for the autobox to go up: it stays put.
        let (_, fast) = drive(1, 150.0);
        assert_eq!(fast.carla_gear(), 1);
        let (idle, n) = drive(0, 0.0);
        assert_eq!((idle, n.carla_gear()), (0.0, 0));
        let (back, r) = drive(-1, 0.0);
        assert!(back < -1000.0 && r.carla_gear() == -1, "{back}");
        // Past the top gear: the top gear.
        assert_eq!(drive(9, 0.0).1.carla_gear(), 5);
        // Back to the automatic: it drives again from the gear it is in.
        let mut g = n;
        g.select(&e, None);
        assert!(g.step(&e, 1.0, false, 0.0, None, 0.01).0 > 0.0);
    }

    #[test]
    fn the_engine_turns_where_the_road_takes_what_it_gives() {
        let e = engine();
        let fresh = || Gearbox {
            in_gear_for: 0.0,
            ..Gearbox::default()
        };
        // A road that takes 1,000 N·m per rad/s the wheels turn faster than
        // it passes (10 rad/s): they spin up until it takes the drive.
        let road = |w: f32| 1000.0 * (w - 10.0);
        let (t, spin) = fresh().step(&e, 1.0, false, 10.0, Some(&road), 0.01);
        let spin = spin.expect("set by the road");
        assert!(spin > 10.5, "{spin}");
        assert!((t - road(spin)).abs() < 1.0, "{t} vs {}", road(spin));
        // Off the throttle the engine brakes: the wheels turn slower.
        let (t, spin) = fresh().step(&e, 0.0, false, 10.0, Some(&road), 0.01);
        let spin = spin.unwrap();
        assert!(spin < 10.0 && t < 0.0, "{spin} {t}");
        assert!((t - road(spin)).abs() < 1.0, "{t} vs {}", road(spin));
        // A road with no grip: the engine runs up to its limit.
        let free = |_: f32| 0.0;
        let mut g = fresh();
        let (_, spin) = g.step(&e, 1.0, false, 0.0, Some(&free), 0.01);
        let rpm = g.rpm();
        assert!(rpm > 0.99 * e.max_rpm && rpm < 1.06 * e.max_rpm, "{rpm}");
        assert!((spin.unwrap() * 2.85 * 4.0 - g.omega).abs() < 1e-3);
        // Rolling back in first the engine stays at rest: no road speed.
        let (t, spin) = fresh().step(&e, 1.0, false, -3.0, Some(&road), 0.01);
        assert!(spin.is_none() && t > 0.0, "{t} {spin:?}");
    }

    #[test]
    fn no_drive_past_max_rpm_only_friction() {
        let e = engine();
        let mut g = Gearbox {
            in_gear_for: 0.0,
            ..Gearbox::default()
        };
        // Wheels turning the engine past 5,000 rpm in first: the curve
        // gives nothing, the engine's friction still brakes.
        let t = g.step(&e, 1.0, false, 600.0 / (2.85 * 4.0), None, 0.01).0;
        let ratio = 2.85 * 4.0;
        assert!((t + e.friction(1.0) * 600.0 * ratio).abs() < 1.0, "{t}");
        assert!(g.rpm() > 5000.0);
    }

    #[test]
    fn bad_controls_are_made_safe() {
        let mut c = VehiclePhysicsControl::default_for(Vector3D::default(), 4);
        c.torque_curve = vec![[f32::NAN, 1.0], [1e30, -5.0]];
        c.forward_gears.clear();
        c.final_ratio = -3.0;
        c.moi = 0.0;
        c.max_rpm = f32::INFINITY;
        let e = Engine::of(&c);
        assert_eq!(e.torque_curve, vec![[1e5, 0.0]]);
        assert!(!e.gears.is_empty());
        assert!(e.final_ratio > 0.0 && e.moi > 0.0 && e.max_rpm.is_finite());
        let mut g = Gearbox::default();
        for w in [f32::NAN, 1e30, -1e30, 0.0] {
            let t = g.step(&e, f32::NAN, false, w, None, 0.01).0;
            assert!(t.is_finite() && g.omega.is_finite(), "{t} {g:?}");
        }
    }
}
