use super::*;
use crate::world::scene::tags::tag;
use crate::world::scene::{Material, Scene, StaticBox, Statics, NO_LIGHT};
use crate::world::simulation::lights::Light;
use crate::world::simulation::pilot::{self, AUTOPILOT_SPEED};
use crate::world::testing;
use carla_server::types::CBool;

const DT: f32 = 1.0 / 30.0;
/// The built-in town's lanes are 3.5 m wide, one each way: the lane
/// heading +x of the road along y = 60 has its centre here.
const LANE_OFFSET: f32 = 1.75;
const ROAD_HALF: f32 = 3.5;

fn ground_transform(x: f32, y: f32, yaw_deg: f32) -> Transform {
    pose_transform(x, y, 0.0, yaw_deg.to_radians(), 0.0, 0.0)
}

fn car() -> Car {
    // Heading +x in the +x lane of road y = 60.
    Car::at(&ground_transform(30.0, 60.0 + LANE_OFFSET, 0.0))
}

fn drive(car: &mut Car, c: Control, seconds: f32) {
    for _ in 0..(seconds / DT).round() as usize {
        car.step(&c, DT, |_| None);
    }
}

fn throttle(t: f32) -> Control {
    Control {
        throttle: t,
        ..Default::default()
    }
}

#[test]
fn throttle_moves_forward_up_to_the_top_speed() {
    let mut c = car();
    drive(&mut c, throttle(1.0), 2.0);
    assert!(c.speed > 5.0 && c.speed < 8.0, "{}", c.speed);
    assert!(
        c.x > 35.0 && (c.y - 60.0 - LANE_OFFSET).abs() < 1e-4,
        "{c:?}"
    );
    assert!(c.accel.x > 2.0 && c.accel.y.abs() < 1e-3, "{:?}", c.accel);
    drive(&mut c, throttle(1.0), 120.0);
    assert!(
        c.speed <= MAX_SPEED && c.speed > 0.8 * MAX_SPEED,
        "{}",
        c.speed
    );
    let mut idle = car();
    drive(&mut idle, Control::default(), 2.0);
    assert_eq!((idle.x, idle.speed), (30.0, 0.0));
}

#[test]
fn brake_and_hand_brake_stop_without_reversing() {
    for c in [
        Control {
            brake: 1.0,
            ..Default::default()
        },
        Control {
            hand_brake: CBool::TRUE,
            ..Default::default()
        },
    ] {
        let mut car = car();
        drive(&mut car, throttle(1.0), 4.0);
        let v = car.speed;
        assert!(v > 10.0);
        drive(&mut car, c, 0.5);
        assert!(car.speed < v - 3.0, "decelerating: {}", car.speed);
        drive(&mut car, c, 2.0);
        assert_eq!(car.speed, 0.0);
        let x = car.x;
        drive(&mut car, c, 1.0);
        assert_eq!(car.x, x);
    }
}

#[test]
fn reverse_goes_backwards() {
    let mut c = car();
    let ctl = Control {
        throttle: 1.0,
        reverse: CBool::TRUE,
        ..Default::default()
    };
    drive(&mut c, ctl, 3.0);
    assert!(
        c.speed < -3.0 && c.speed >= -MAX_REVERSE_SPEED,
        "{}",
        c.speed
    );
    assert!(c.x < 25.0, "{}", c.x);
    assert_eq!(c.transform().rotation.yaw, 0.0, "still facing forward");
}

#[test]
fn steer_turns_right_for_positive_values() {
    let mut c = car();
    drive(&mut c, throttle(0.5), 2.0);
    let ctl = Control {
        steer: 0.5,
        throttle: 0.3,
        ..Default::default()
    };
    drive(&mut c, ctl, 1.0);
    let yaw = c.transform().rotation.yaw;
    assert!(yaw > 10.0 && yaw < 120.0, "{yaw}");
    assert!(c.y > 60.0 + LANE_OFFSET + 0.5, "moved to +y: {}", c.y);
    let mut left = car();
    drive(&mut left, throttle(0.5), 2.0);
    drive(&mut left, Control { steer: -0.5, ..ctl }, 1.0);
    assert!((left.transform().rotation.yaw + yaw).abs() < 1e-2);
    // Standing still, the wheels turn but the car does not.
    let mut still = car();
    drive(
        &mut still,
        Control {
            steer: 1.0,
            ..Default::default()
        },
        1.0,
    );
    assert_eq!(still.yaw, 0.0);
}

#[test]
fn bad_inputs_are_clamped_or_ignored() {
    let mut c = car();
    let ctl = Control {
        steer: f32::NAN,
        throttle: 7.0,
        brake: -3.0,
        ..Default::default()
    };
    drive(&mut c, ctl, 1.0);
    let mut reference = car();
    drive(&mut reference, throttle(1.0), 1.0);
    assert_eq!(c, reference);
    c.step(&ctl, f32::NAN, |_| None);
    assert_eq!(c, reference);
}

#[test]
fn driving_into_a_building_accumulates_collision_other_and_stops() {
    let wall = StaticBox {
        min: Vector3D {
            x: 50.0,
            y: 55.0,
            z: 0.0,
        },
        max: Vector3D {
            x: 60.0,
            y: 70.0,
            z: 10.0,
        },
        tag: tag::BUILDINGS,
        albedo: [0; 3],
        light: NO_LIGHT,
        actor: 0,
    };
    let scene = Scene::of(Statics {
        lamps: Vec::new(),
        boxes: vec![wall],
        ground: Material::default(),
        bounds: ((0.0, 0.0), (100.0, 100.0)),
        ..Default::default()
    });
    let collide = |r: &Rect| {
        scene
            .static_overlap(r, 0.0, 1.5)
            .map(|(t, a)| Collision::Other(t, a))
    };
    let mut c = car();
    for _ in 0..150 {
        c.step(&throttle(1.0), DT, collide);
    }
    assert!(c.collision_other > MASS_KG * 5.0, "{}", c.collision_other);
    assert_eq!((c.collision_vehicles, c.collision_pedestrians), (0.0, 0.0));
    assert_eq!(c.speed, 0.0);
    assert!(
        c.x + EXTENT.x <= 50.0 && c.x + EXTENT.x > 48.5,
        "stopped at the wall: {}",
        c.x
    );
    // Backing out works, and does not add to the impulse.
    let before = c.collision_other;
    let back = Control {
        throttle: 1.0,
        reverse: CBool::TRUE,
        ..Default::default()
    };
    for _ in 0..30 {
        c.step(&back, DT, collide);
    }
    assert!(c.x < 47.0, "{}", c.x);
    assert_eq!(c.collision_other, before);
}

#[test]
fn lane_fractions_on_and_off_the_road() {
    let town = testing::town();
    let lanes = &town.map.lanes;
    let at = |x, y, yaw| Car::at(&ground_transform(x, y, yaw)).lane_fractions(lanes);
    let lane = 60.0 + LANE_OFFSET;
    assert_eq!(at(30.0, lane, 0.0), (0.0, 0.0));
    assert_eq!(
        at(30.0, 60.0 - LANE_OFFSET, 0.0),
        (1.0, 0.0),
        "wrong-way lane"
    );
    assert_eq!(at(30.0, 60.0 - LANE_OFFSET, 180.0), (0.0, 0.0));
    assert_eq!(at(30.0, 90.0, 0.0), (0.0, 1.0), "in a block");
    let (other, off) = at(30.0, 60.0 + ROAD_HALF, 0.0);
    assert!(
        (off - 1.0 / 3.0).abs() < 1e-6 && other == 0.0,
        "{other} {off}"
    );
    let (other, off) = at(30.0, 60.1, 0.0);
    assert!(
        (other - 1.0 / 3.0).abs() < 1e-6 && off == 0.0,
        "straddling the centre: {other} {off}"
    );
    assert_eq!(at(60.0, 60.0, 45.0), (0.0, 0.0), "junction");
}

#[test]
fn autopilot_follows_the_lanes_round_the_town() {
    // From every 8th spawn point, 2 minutes with no traffic (lights
    // honoured: each approach of a junction waits for its turn). Tight
    // right turns swing a little wide (the car's turning circle is larger
    // than the corner), so brief, small lane departures are allowed.
    let town = testing::town();
    let (lanes, ways) = (&town.map.lanes, &town.ways);
    for spot in town.map.spawn_points.iter().step_by(8) {
        let mut lights = town.lights.clone();
        let mut c = Car::sized(spot, EXTENT, 0.0);
        let (mut distance, mut outside, mut worst) = (0.0, 0, 0.0f32);
        let steps = 3600;
        for _ in 0..steps {
            lights.advance(DT);
            let ctl = pilot::drive(&c, lanes, ways, &lights, None);
            let (x, y) = (c.x, c.y);
            c.step(&ctl, DT, |_| None);
            distance += (c.x - x).hypot(c.y - y);
            let (other, off) = c.lane_fractions(lanes);
            outside += (other + off > 0.0) as u32;
            worst = worst.max(other + off);
            assert!(c.speed <= AUTOPILOT_SPEED + 0.5);
        }
        assert!(distance > 100.0, "{distance}");
        assert!(
            outside < steps / 20 && worst < 0.34,
            "{spot:?}: {outside} steps, worst {worst}"
        );
    }
}

#[test]
fn autopilot_stops_at_a_red_light() {
    let town = testing::town();
    let (lanes, ways) = (&town.map.lanes, &town.ways);
    // A lane with a light, held red.
    let (lane, stop) = (0u32..)
        .zip(&ways.stops)
        .find_map(|(l, s)| s.map(|s| (l, s)))
        .expect("a lane with a light");
    let mut lights = town.lights.clone();
    lights.set_state(stop.light, Light::Red);
    lights.freeze(stop.light, true);
    let start = lanes.lane(lane).pose((stop.dist - 30.0).max(0.0));
    let mut c = Car::sized(
        &pose_transform(
            start.position[0],
            start.position[1],
            0.0,
            start.yaw,
            0.0,
            0.0,
        ),
        EXTENT,
        0.0,
    );
    c.speed = AUTOPILOT_SPEED;
    for _ in 0..240 {
        let ctl = pilot::drive(&c, lanes, ways, &lights, None);
        c.step(&ctl, DT, |_| None);
    }
    assert!(c.speed.abs() < 0.05, "{c:?}");
    let on = lanes
        .nearest_driving(c.x, c.y, 0.0, 3.0)
        .expect("on its lane");
    assert_eq!(on.lane, lane);
    let front = on.dist + EXTENT.x;
    assert!(
        front < stop.dist && front > stop.dist - 15.0,
        "held before the stop line at {}: front at {front}",
        stop.dist
    );
}

#[test]
fn a_blueprints_box_centre_ahead_of_the_origin_is_what_collides() {
    // A car heading Unreal +y whose box is centred 0.2 m ahead of its
    // origin (as CARLA's blueprints' boxes are, by up to 0.19 m).
    let spot = ground_transform(10.0, 20.0, 90.0);
    let c = Car::sized(&spot, EXTENT, 0.2);
    let r = c.footprint();
    assert!(
        (r.cx - 10.0).abs() < 1e-5 && (r.cy - 20.2).abs() < 1e-5,
        "{r:?}"
    );
    // Driving at a wall, its box's front stops at the wall, not its origin's.
    let wall = Rect::new(10.0, 30.0, 0.0, 5.0, 0.5);
    let mut c = Car::sized(&spot, EXTENT, 0.2);
    for _ in 0..200 {
        c.step(&throttle(1.0), DT, |r: &Rect| {
            r.overlaps(&wall).then_some(Collision::Other(0, 0))
        });
    }
    let front = c.footprint().cy + EXTENT.x;
    assert!(
        front <= 29.5 && front > 28.5,
        "box front {front}, origin {}",
        c.y
    );
}
