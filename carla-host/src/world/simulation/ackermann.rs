//! A vehicle under `apply_ackermann_control`: the server's controller that
//! turns a target steer angle, speed and acceleration into throttle, brake
//! and steer, as CARLA's does. Once per tick: the steer moves towards its
//! target at the steer speed (at once when that is 0); a speed PID adds to
//! an acceleration target (within the asked acceleration, or -8..3 m/s²
//! when that is 0), an acceleration PID adds to a pedal (-1..1) that is
//! throttle forward and brake backward (the other way round in reverse);
//! at a standstill with a zero target it brakes fully, and it changes
//! direction only from a standstill. The measured acceleration is
//! averaged over ticks, and each PID's output is within -1..1. The PIDs'
//! gains are
//! `apply_ackermann_controller_settings`'s (CARLA's defaults: speed 0.15,
//! 0, 0.25; acceleration 0.01, 0, 0.01).

use carla_server::types::{CBool, Control};

/// CARLA's controller gains: speed kp, ki, kd; acceleration kp, ki, kd.
pub(crate) const DEFAULT_SETTINGS: [f32; 6] = [0.15, 0.0, 0.25, 0.01, 0.0, 0.01];
const MAX_ACCEL: f32 = 3.0;
const MAX_DECEL: f32 = 8.0;
/// Below this speed (m/s) a car stands still.
const STILL: f32 = 0.1;

/// One PID on a measurement, its derivative on the measurement; its
/// integral and output within -1..1.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Pid {
    integral: f32,
    last_input: Option<f32>,
}

impl Pid {
    fn run(&mut self, [kp, ki, kd]: [f32; 3], target: f32, input: f32, dt: f32) -> f32 {
        let error = target - input;
        self.integral = (self.integral + ki * error * dt).clamp(-1.0, 1.0);
        let derivative = match self.last_input {
            Some(last) if dt > 0.0 => -kd * (input - last) / dt,
            _ => 0.0,
        };
        self.last_input = Some(input);
        (kp * error + self.integral + derivative).clamp(-1.0, 1.0)
    }
}

/// The controller of one vehicle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ackermann {
    pub settings: [f32; 6],
    /// steer (rad), steer speed (rad/s), speed (m/s), acceleration
    /// (m/s²), jerk (m/s³; not used, as in CARLA).
    pub target: [f32; 5],
    steer: f32,
    reverse: bool,
    speed_pid: Pid,
    accel_pid: Pid,
    accel_target: f32,
    pedal: f32,
    last_speed: Option<f32>,
    /// The measured acceleration, averaged (4 parts the last, 1 the new).
    accel: f32,
}

impl Ackermann {
    pub(crate) fn new(settings: [f32; 6]) -> Ackermann {
        Ackermann {
            settings,
            target: [0.0; 5],
            steer: 0.0,
            reverse: false,
            speed_pid: Pid::default(),
            accel_pid: Pid::default(),
            accel_target: 0.0,
            pedal: 0.0,
            last_speed: None,
            accel: 0.0,
        }
    }

    /// A new target (`apply_ackermann_control`); non-finite values read
    /// as 0.
    pub(crate) fn aim(&mut self, target: [f32; 5]) {
        self.target = target.map(|v| if v.is_finite() { v } else { 0.0 });
    }

    /// One tick of `dt` for a car at forward `speed` (m/s) whose wheels
    /// turn at most `max_steer` radians: the control to drive under.
    pub(crate) fn run(&mut self, speed: f32, max_steer: f32, dt: f32) -> Control {
        let [steer, steer_speed, target_speed, accel, _] = self.target;
        let max_steer = max_steer.max(1e-3);
        let want = steer.clamp(-max_steer, max_steer);
        let step = steer_speed.abs() * dt;
        if steer_speed == 0.0 || (want - self.steer).abs() <= step {
            self.steer = want;
        } else {
            self.steer += step * (want - self.steer).signum();
        }
        let accel_now = match self.last_speed {
            Some(last) if dt > 0.0 => (speed - last) / dt,
            _ => 0.0,
        };
        self.accel = (4.0 * self.accel + accel_now) / 5.0;
        self.last_speed = Some(speed);
        let (mut throttle, mut brake) = (0.0, 0.0);
        if speed.abs() < STILL && target_speed.abs() < STILL {
            brake = 1.0;
        } else {
            // Direction changes only from a standstill; until then the
            // target is to stop.
            let mut target = target_speed;
            if speed.abs() < STILL {
                self.reverse = target_speed < 0.0;
            } else if speed.signum() * target_speed.signum() < 0.0 {
                target = 0.0;
            }
            let s = &self.settings;
            let delta = self.speed_pid.run([s[0], s[1], s[2]], target, speed, dt);
            let (lo, hi) = if accel.abs() < 1e-4 {
                (-MAX_DECEL, MAX_ACCEL)
            } else {
                (-accel.abs(), accel.abs())
            };
            self.accel_target = (self.accel_target + delta).clamp(lo, hi);
            let pedal = self
                .accel_pid
                .run([s[3], s[4], s[5]], self.accel_target, self.accel, dt);
            self.pedal = (self.pedal + pedal).clamp(-1.0, 1.0);
            if (self.pedal >= 0.0) != self.reverse {
                throttle = self.pedal.abs();
            } else {
                brake = self.pedal.abs();
            }
        }
        let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
        Control {
            steer: finite(self.steer / max_steer).clamp(-1.0, 1.0),
            throttle: finite(throttle),
            brake: finite(brake),
            hand_brake: CBool::FALSE,
            reverse: CBool::from(self.reverse),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point mass whose acceleration follows the pedal (3 m/s² full
    /// throttle, 8 m/s² full brake), driven for `seconds` at 0.05 s ticks.
    fn drive(a: &mut Ackermann, mut v: f32, seconds: f32) -> f32 {
        for _ in 0..(seconds / 0.05) as usize {
            let c = a.run(v, 1.2, 0.05);
            let sign = if c.reverse.get() { -1.0 } else { 1.0 };
            v += sign * 3.0 * c.throttle * 0.05;
            // Brakes slow it down to a stop, never past.
            v = v.signum() * (v.abs() - 8.0 * c.brake * 0.05).max(0.0);
        }
        v
    }

    #[test]
    fn it_reaches_and_holds_the_target_speed_and_stops() {
        let mut a = Ackermann::new(DEFAULT_SETTINGS);
        a.aim([0.0, 0.0, 5.0, 0.0, 0.0]);
        let v = drive(&mut a, 0.0, 30.0);
        assert!((v - 5.0).abs() < 0.5, "{v}");
        a.aim([0.0, 0.0, 0.0, 0.0, 0.0]);
        let v = drive(&mut a, v, 30.0);
        assert!(v.abs() < STILL, "{v}");
        // Backwards from a standstill.
        a.aim([0.0, 0.0, -2.0, 0.0, 0.0]);
        let v = drive(&mut a, v, 30.0);
        assert!((v + 2.0).abs() < 0.5, "{v}");
    }

    #[test]
    fn the_steer_moves_at_its_speed_and_gains_matter() {
        let mut a = Ackermann::new(DEFAULT_SETTINGS);
        a.aim([0.6, 0.4, 0.0, 0.0, 0.0]);
        let c = a.run(0.0, 1.2, 0.5);
        assert!((c.steer - 0.2 / 1.2).abs() < 1e-5, "{}", c.steer);
        a.aim([0.6, 0.0, 0.0, 0.0, 0.0]);
        assert!((a.run(0.0, 1.2, 0.05).steer - 0.5).abs() < 1e-5);
        // No gains: no pedal at all.
        let mut off = Ackermann::new([0.0; 6]);
        off.aim([0.0, 0.0, 5.0, 0.0, 0.0]);
        assert_eq!(drive(&mut off, 0.0, 5.0), 0.0);
    }
}
