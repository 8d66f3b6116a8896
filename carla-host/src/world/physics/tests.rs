use super::*;
use carla_server::rpc::VehiclePhysicsControl;

const EXTENT: Vector3D = Vector3D {
    x: 2.3,
    y: 1.0,
    z: 0.75,
};

fn control() -> VehiclePhysicsControl {
    VehiclePhysicsControl::default_for(EXTENT, 4)
}

fn flat() -> Physics {
    Physics::new(&Arc::new(Statics::with(0.0, Vec::new())))
}

fn with_car(p: &mut Physics, id: u32, x: f32, c: &VehiclePhysicsControl) {
    p.add_vehicle(id, v3(x, 0.0, 0.0), 0.0, 0.0, 0.0, EXTENT, 0.0, c);
}

/// Steps `p` at 0.05 s ticks under a fixed drive until `done` or `limit`
/// seconds; returns the time taken.
fn run(p: &mut Physics, d: Drive, limit: f32, done: impl Fn(&BodyState) -> bool) -> f32 {
    let mut t = 0.0;
    while t < limit {
        p.step(0.05, |_| Some(d));
        t += 0.05;
        if std::env::var_os("PHYSICS_TRACE").is_some() {
            let s = p.state(1).unwrap();
            eprintln!("{t:.2} v={:.2} {:?}", s.forward_speed, p.engine(1));
        }
        if done(&p.state(1).unwrap()) {
            return t;
        }
    }
    f32::INFINITY
}

const FULL: Drive = Drive {
    throttle: 1.0,
    steer: 0.0,
    brake: 0.0,
    hand_brake: false,
    reverse: false,
    gear: None,
};

fn time_to_50(c: &VehiclePhysicsControl) -> f32 {
    let mut p = flat();
    with_car(&mut p, 1, 0.0, c);
    run(&mut p, Drive::default(), 1.0, |_| false);
    run(&mut p, FULL, 60.0, |s| s.forward_speed >= 50.0 / 3.6)
}

#[test]
fn a_car_rests_on_its_wheels() {
    let mut p = flat();
    with_car(&mut p, 1, 0.0, &control());
    run(&mut p, Drive::default(), 3.0, |_| false);
    let s = p.state(1).unwrap();
    assert!(s.position.z.abs() < 0.03, "{s:?}");
    assert!(s.velocity.x.abs() < 0.01 && s.pitch.abs() < 0.01, "{s:?}");
    assert!(p.touches().is_empty(), "{:?}", p.touches());
}

#[test]
fn mass_and_torque_change_the_acceleration() {
    // CARLA's default engine inertia (1 kg·m²) turns, through first gear
    // (2.85 · 4 over a 0.3 m wheel), like 1,440 kg more car, and the two
    // shifts on the way to 50 km/h coast 0.5 s each: doubling the mass
    // alone cannot double the time (x1.43 here). With an engine of a
    // common car's inertia (0.2 kg·m²) and quick shifts (0.1 s) the
    // car's own mass decides.
    let default = time_to_50(&control());
    assert!(default > 2.0 && default < 15.0, "0-50 km/h in {default} s");
    let mut heavy = control();
    heavy.mass *= 2.0;
    let ratio = time_to_50(&heavy) / default;
    assert!((1.3..=2.5).contains(&ratio), "default engine: x{ratio}");
    let mut light = control();
    light.moi = 0.2;
    light.gear_switch_time = 0.1;
    let base = time_to_50(&light);
    light.mass *= 2.0;
    let ratio = time_to_50(&light) / base;
    assert!((1.5..=2.5).contains(&ratio), "0.2 kg·m² engine: x{ratio}");
    let mut weak = control();
    weak.torque_curve.iter_mut().for_each(|p| p[1] *= 0.5);
    let weak = time_to_50(&weak);
    assert!(weak > default * 1.2, "{default} s -> {weak} s");
}

#[test]
fn final_ratio_and_gears_change_the_top_speed() {
    let top = |c: &VehiclePhysicsControl| {
        let mut p = flat();
        with_car(&mut p, 1, 0.0, c);
        run(&mut p, FULL, 40.0, |_| false);
        p.state(1).unwrap().forward_speed
    };
    let base = top(&control());
    let mut short = control();
    short.final_ratio *= 2.0;
    let short = top(&short);
    let mut first = control();
    first.forward_gears.truncate(1);
    let first = top(&first);
    assert!(short < base * 0.8, "{base} vs {short}");
    assert!(first < base * 0.6, "{base} vs {first}");
}

#[test]
fn full_brake_stops_within_the_tires_grip() {
    // Brakes strong enough that the tires' grip decides: at 20 m/s the
    // car stops in v² / (2 μ g).
    let mut c = control();
    c.wheels
        .iter_mut()
        .for_each(|w| w.max_brake_torque = 20_000.0);
    let mut p = flat();
    with_car(&mut p, 1, 0.0, &c);
    run(&mut p, Drive::default(), 1.0, |_| false);
    p.set_velocity(1, v3(20.0, 0.0, 0.0), false);
    let x0 = p.state(1).unwrap().position.x;
    let brake = Drive {
        brake: 1.0,
        ..Drive::default()
    };
    run(&mut p, brake, 20.0, |s| s.forward_speed.abs() < 0.05);
    let d = p.state(1).unwrap().position.x - x0;
    let mu = c.wheels[0].tire_friction;
    let ideal = 20.0f32 * 20.0 / (2.0 * mu * 9.81);
    assert!(d > ideal * 0.8 && d < ideal * 1.5, "{d} m vs {ideal} m");
}

#[test]
fn steering_turns_on_its_wheelbase_and_slides_at_speed() {
    let mut c = control();
    c.steering_curve = vec![[0.0, 1.0], [300.0, 1.0]];
    c.wheels
        .iter_mut()
        .take(2)
        .for_each(|w| w.max_steer_angle = 30.0);
    let start = |v: f32| {
        let mut p = flat();
        with_car(&mut p, 1, 0.0, &c);
        run(&mut p, Drive::default(), 1.0, |_| false);
        p.set_velocity(1, v3(v, 0.0, 0.0), false);
        p
    };
    let speed = |s: &BodyState| s.velocity.x.hypot(s.velocity.y);
    // 5 m/s held with the throttle, full steer right, for 6 s.
    let mut p = start(5.0);
    for _ in 0..120 {
        let s = p.state(1).unwrap();
        let d = Drive {
            throttle: if speed(&s) < 5.0 { 0.6 } else { 0.0 },
            steer: 1.0,
            ..Drive::default()
        };
        p.step(0.05, |_| Some(d));
    }
    let s = p.state(1).unwrap();
    let (r, w) = (speed(&s) / s.angular.z, s.angular.z);
    let wheelbase = 2.0 * c.wheels[0].position.x;
    let ideal = wheelbase / 30f32.to_radians().tan();
    assert!(w > 0.0, "steer right turns towards +y (+yaw): {w}");
    assert!((r - ideal).abs() < 0.3 * ideal, "{r} m vs {ideal} m");
    // 20 m/s, the same steer for 0.3 s: v²/R would be 84 m/s²; the
    // tires give about μg, so the car slides on a wider circle.
    let mut p = start(20.0);
    let steer = Drive {
        steer: 1.0,
        ..Drive::default()
    };
    run(&mut p, steer, 0.3, |_| false);
    let s = p.state(1).unwrap();
    let lateral = speed(&s) * s.angular.z;
    let mu_g = c.wheels[0].tire_friction * 9.81;
    assert!(speed(&s) > 15.0, "{s:?}");
    assert!(lateral < 1.3 * mu_g, "{lateral} m/s² vs μg {mu_g}");
    assert!(speed(&s) / s.angular.z > 3.0 * ideal, "{s:?}");
}

#[test]
fn on_a_grade_it_rolls_and_the_hand_brake_holds() {
    // A 10% grade rising along +x.
    let slope = 0.1f32;
    let n = Vector::new(-slope, 0.0, 1.0).normalize();
    let plane = (SharedShape::halfspace(n), Vector::ZERO, Part::Surface);
    let statics = Arc::new(Statics::with(-50.0, vec![plane]));
    let go = |hand: bool| {
        let mut p = Physics::new(&statics);
        p.add_vehicle(
            1,
            v3(0.0, 0.0, 0.1),
            0.0,
            slope.atan(),
            0.0,
            EXTENT,
            0.0,
            &control(),
        );
        let d = Drive {
            hand_brake: hand,
            ..Drive::default()
        };
        run(&mut p, d, 6.0, |_| false);
        p.state(1).unwrap().position.x
    };
    let free = go(false);
    let held = go(true);
    assert!(free < -2.0, "rolled to {free}");
    assert!(held.abs() < 0.3, "held at {held}");
}

#[test]
fn a_car_into_a_parked_one_pushes_it_and_both_feel_it() {
    let c = control();
    let mut p = flat();
    with_car(&mut p, 1, 0.0, &c);
    with_car(&mut p, 2, 10.0, &c);
    run(&mut p, Drive::default(), 1.0, |_| false);
    p.set_velocity(1, v3(10.0, 0.0, 0.0), false);
    let (mut j1, mut j2) = (0.0f32, 0.0f32);
    let mut min_gap = f32::INFINITY;
    for _ in 0..40 {
        p.step(0.05, |_| Some(Drive::default()));
        for t in p.touches() {
            let m = (t.impulse.x.powi(2) + t.impulse.y.powi(2)).sqrt();
            match (t.vehicle, t.other) {
                (1, Part::Vehicle(2)) => j1 += m,
                (2, Part::Vehicle(1)) => j2 += m,
                _ => {}
            }
        }
        let (a, b) = (p.state(1).unwrap(), p.state(2).unwrap());
        min_gap = min_gap.min(b.position.x - a.position.x - 2.0 * EXTENT.x);
    }
    let moved = p.state(2).unwrap().position.x - 10.0;
    assert!(moved > 0.5, "the parked car moved {moved} m");
    assert!(min_gap > -0.1, "overlap {min_gap} m");
    // m·Δv: the striker loses about half its speed in a plastic hit.
    let expected = c.mass * 5.0;
    assert!((j1 - expected).abs() < 0.5 * expected, "{j1} vs {expected}");
    assert!((j2 - j1).abs() < 0.1 * j1, "{j1} vs {j2}");
}

/// A run of two cars, one steering, one hitting it; every body's bits.
fn history() -> Vec<u32> {
    let mut p = flat();
    with_car(&mut p, 1, 0.0, &control());
    with_car(&mut p, 2, 30.0, &control());
    let mut out = Vec::new();
    for i in 0..400 {
        let d = Drive {
            throttle: 0.7,
            steer: ((i as f32) * 0.05).sin() * 0.3,
            ..Drive::default()
        };
        p.step(0.05, |id| (id == 1).then_some(d));
        for id in [1, 2] {
            let s = p.state(id).unwrap();
            for v in [s.position, s.velocity, s.angular] {
                out.extend([v.x, v.y, v.z].map(f32::to_bits));
            }
        }
    }
    out
}

#[test]
fn the_same_commands_give_the_same_bits() {
    assert_eq!(history(), history());
}

#[test]
fn absurd_inputs_leave_the_world_finite() {
    let mut c = control();
    c.mass = 1e-30;
    c.final_ratio = -1.0;
    c.forward_gears.iter_mut().for_each(|g| g.ratio = 0.0);
    c.wheels.iter_mut().for_each(|w| w.radius = 0.0);
    for (w, k) in c.wheels.iter_mut().zip([f32::NAN, -5.0, 0.0, 1e30]) {
        w.long_stiff_value = k;
    }
    c.use_sweep_wheel_collision = true;
    c.torque_curve = vec![[0.0, 1e30]; 64];
    let mut p = flat();
    with_car(&mut p, 1, 0.0, &control());
    with_car(&mut p, 2, 10.0, &control());
    p.apply_control(1, &c);
    p.impulse(2, v3(1e30, 0.0, 1e30), false);
    p.impulse(2, v3(0.0, 1e30, 0.0), true);
    p.set_velocity(1, v3(f32::NAN, 0.0, 0.0), false);
    let d = Drive {
        throttle: f32::NAN,
        steer: f32::INFINITY,
        brake: -5.0,
        ..Drive::default()
    };
    // Then full throttle, so the absurd tires drive too.
    for k in 0..100 {
        p.step(0.05, |_| Some(if k < 50 { d } else { FULL }));
        for id in [1, 2] {
            let s = p.state(id).unwrap();
            for v in [s.position, s.velocity, s.angular] {
                assert!(
                    v.x.is_finite() && v.y.is_finite() && v.z.is_finite(),
                    "{s:?}"
                );
            }
            let t = p.telemetry(id).unwrap();
            let mut wheels = t.wheels.iter().take(t.wheel_count as usize);
            let finite = wheels
                .all(|w| w.omega.is_finite() && w.tire_load.is_finite() && w.long_slip.is_finite());
            assert!(t.engine_rpm.is_finite() && finite, "{t:?}");
        }
    }
}

/// Flat ground with a road sheet `lift` m above it from x = 8 to 40 (a
/// junction's connecting road whose elevation is not its neighbour's), and
/// a wall at x = 60 when `wall`.
fn raised_sheet(lift: f32, wall: bool) -> Physics {
    let vs = vec![
        Vector::new(8.0, -5.0, lift),
        Vector::new(40.0, -5.0, lift),
        Vector::new(40.0, 5.0, lift),
        Vector::new(8.0, 5.0, lift),
    ];
    let sheet = SharedShape::trimesh(vs, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    let mut extra = vec![(sheet, Vector::ZERO, Part::Surface)];
    if wall {
        let w = SharedShape::cuboid(0.5, 10.0, 2.0);
        extra.push((w, Vector::new(60.5, 0.0, 2.0), Part::Static(3, 0)));
    }
    Physics::new(&Arc::new(Statics::with(0.0, extra)))
}

#[test]
fn the_edge_of_a_road_sheet_a_little_higher_does_not_stop_a_car() {
    // 0.4 m: above the box's bottom (0.25 m), below the wheels' reach.
    let mut p = raised_sheet(0.4, false);
    with_car(&mut p, 1, 0.0, &control());
    run(&mut p, Drive::default(), 1.0, |_| false);
    let t = run(&mut p, FULL, 15.0, |s| s.position.x > 45.0);
    assert!(
        t < 15.0,
        "stopped at x {:.2}",
        p.state(1).unwrap().position.x
    );
    // It rode over the sheet and down its far edge onto the ground.
    let s = p.state(1).unwrap();
    assert!(s.position.z.abs() < 0.1, "{s:?}");
    // A wall still stops it, and it does not pass through.
    let mut p = raised_sheet(0.4, true);
    with_car(&mut p, 1, 0.0, &control());
    run(&mut p, FULL, 15.0, |_| false);
    let x = p.state(1).unwrap().position.x;
    assert!(x < 60.0 - EXTENT.x + 0.05, "x {x:.2}");
    // And a car dropped onto the sheet lands on it.
    let mut p = raised_sheet(0.4, false);
    p.add_vehicle(
        1,
        v3(20.0, 0.0, 5.0),
        0.0,
        0.0,
        0.0,
        EXTENT,
        0.0,
        &control(),
    );
    run(&mut p, Drive::default(), 4.0, |_| false);
    let z = p.state(1).unwrap().position.z;
    assert!((z - 0.4).abs() < 0.1, "landed at z {z:.3}");
}

#[test]
fn a_low_lateral_stiffness_load_cap_turns_the_car_less() {
    // 12 m/s, a quarter steer for 0.5 s: with the cornering stiffness
    // capped at a tenth of each wheel's load the car yaws into the turn
    // more slowly.
    let yaw_rate = |max_load: f32| {
        let mut c = control();
        c.wheels
            .iter_mut()
            .for_each(|w| w.lat_stiff_max_load = max_load);
        let mut p = flat();
        with_car(&mut p, 1, 0.0, &c);
        run(&mut p, Drive::default(), 1.0, |_| false);
        p.set_velocity(1, v3(12.0, 0.0, 0.0), false);
        let d = Drive {
            throttle: 0.3,
            steer: 0.25,
            ..Drive::default()
        };
        run(&mut p, d, 0.5, |_| false);
        p.state(1).unwrap().angular.z
    };
    let (full, capped) = (yaw_rate(2.0), yaw_rate(0.1));
    assert!(
        capped > 0.0 && capped < 0.8 * full,
        "{capped} vs {full} rad/s"
    );
}

#[test]
fn a_swept_wheel_meets_a_step_before_its_centre_is_over_it() {
    // Rolling in neutral at 3 m/s onto a sheet 5 cm up from x = 8: a
    // ray-cast front wheel rises when its centre passes the edge; a swept
    // one (0.3 m radius) when its tread touches the edge, about
    // √(0.3² − 0.25²) = 0.17 m sooner.
    let front_axle_at_rise = |sweep: bool| {
        let mut c = control();
        c.use_sweep_wheel_collision = sweep;
        let mut p = raised_sheet(0.05, false);
        with_car(&mut p, 1, 0.0, &c);
        run(&mut p, Drive::default(), 1.0, |_| false);
        let z0 = p.state(1).unwrap().position.z;
        assert!(p.set_velocity(1, v3(3.0, 0.0, 0.0), false));
        let neutral = Drive {
            gear: Some(0),
            ..Drive::default()
        };
        for _ in 0..300 {
            p.step(0.01, |_| Some(neutral));
            let s = p.state(1).unwrap();
            if s.position.z > z0 + 0.003 {
                return s.position.x + 0.6 * EXTENT.x;
            }
        }
        panic!("never rose (sweep {sweep})");
    };
    let (ray, swept) = (front_axle_at_rise(false), front_axle_at_rise(true));
    assert!(ray > 7.95, "ray: front axle at {ray:.3}");
    assert!(swept < ray - 0.08 && swept > 7.7, "{swept:.3} vs {ray:.3}");
    // On flat ground the two rest alike.
    let rest = |sweep: bool| {
        let mut c = control();
        c.use_sweep_wheel_collision = sweep;
        let mut p = flat();
        with_car(&mut p, 1, 0.0, &c);
        run(&mut p, Drive::default(), 2.0, |_| false);
        p.state(1).unwrap().position.z
    };
    assert!((rest(true) - rest(false)).abs() < 1e-3);
}

#[test]
fn a_soft_tire_spins_and_pushes_less() {
    // Full throttle from rest for 1 s. CARLA's tire (long_stiff_value
    // 1000: 9,810 N per unit slip) turns a little faster than the road
    // under it; one of 5 (49 N per unit slip) spins the engine up to its
    // limit and barely moves the car.
    let launch = |stiffness: f32| {
        let mut c = control();
        c.wheels
            .iter_mut()
            .for_each(|w| w.long_stiff_value = stiffness);
        let mut p = flat();
        with_car(&mut p, 1, 0.0, &c);
        run(&mut p, Drive::default(), 1.0, |_| false);
        run(&mut p, FULL, 1.0, |_| false);
        (p.state(1).unwrap().forward_speed, p.telemetry(1).unwrap())
    };
    let (v, t) = launch(1000.0);
    let (soft_v, soft) = launch(5.0);
    assert!(v > 3.0 && soft_v < v / 3.0, "{v} m/s vs {soft_v} m/s");
    for w in &t.wheels[..4] {
        assert!(w.long_slip > 0.01 && w.long_slip < 0.5, "{w:?}");
        let rolling = v / 0.3;
        assert!(w.omega > rolling * 1.01, "{} vs {rolling}", w.omega);
    }
    for w in &soft.wheels[..4] {
        assert!(w.long_slip > 2.0, "{w:?}");
    }
    assert!(soft.engine_rpm > 0.9 * control().max_rpm, "{soft:?}");
    assert!(t.engine_rpm < soft.engine_rpm, "{t:?}");
    // Off the throttle at speed the engine brakes the wheels: the tread
    // turns slower than the road.
    let mut p = flat();
    with_car(&mut p, 1, 0.0, &control());
    run(&mut p, Drive::default(), 1.0, |_| false);
    run(&mut p, FULL, 3.0, |_| false);
    run(&mut p, Drive::default(), 0.2, |_| false);
    let coast = p.telemetry(1).unwrap();
    assert!(
        coast.wheels[..4].iter().all(|w| w.long_slip < -0.001),
        "{coast:?}"
    );
}
