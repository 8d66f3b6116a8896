use super::*;
use crate::types::Rotation3D;

fn round_trip(c: &VehiclePhysicsControl) -> ArgResult<VehiclePhysicsControl> {
    let mut bytes = Vec::new();
    c.encode(&mut bytes);
    let v = rmpv::decode::read_value(&mut bytes.as_slice()).unwrap();
    VehiclePhysicsControl::decode(&v)
}

fn car() -> VehiclePhysicsControl {
    let extent = Vector3D {
        x: 2.4,
        y: 1.0,
        z: 0.75,
    };
    VehiclePhysicsControl::default_for(extent, 4)
}

#[test]
fn defaults_are_libcarlas_with_wheels_from_the_box() {
    let c = car();
    assert_eq!((c.mass, c.max_rpm, c.final_ratio), (1500.0, 5000.0, 4.0));
    assert_eq!(c.torque_curve, [[0.0, 500.0], [5000.0, 500.0]]);
    let curve = [[0.0, 1.0], [20.0, 0.9], [60.0, 0.8], [120.0, 0.7]];
    assert_eq!(
        c.steering_curve, curve,
        "the steering curve CARLA's cars report"
    );
    assert_eq!(c.forward_gears.len(), 5);
    assert_eq!(c.wheels.len(), 4);
    let steer: Vec<f32> = c.wheels.iter().map(|w| w.max_steer_angle).collect();
    assert_eq!(steer, [70.0, 70.0, 0.0, 0.0], "front wheels steer");
    assert_eq!(c.max_steer_angle(), 70.0);
    // Front left is ahead and to the left (negative y in CARLA's frame).
    let fl = c.wheels[0].position;
    assert!(fl.x > 0.0 && fl.y < 0.0 && fl.z < 0.0, "{fl:?}");
    let bike = VehiclePhysicsControl::default_for(Vector3D::default(), 2);
    assert_eq!((bike.wheels.len(), bike.mass), (2, 250.0));
}

#[test]
fn the_wire_form_round_trips_and_has_17_fields() {
    let mut c = car();
    c.mass = 2100.5;
    c.center_of_mass = Vector3D {
        x: 0.1,
        y: 0.0,
        z: -0.4,
    };
    c.use_sweep_wheel_collision = true;
    c.steering_curve.push([180.0, 0.3]);
    assert_eq!(round_trip(&c), Ok(c.clone()));
    let mut bytes = Vec::new();
    c.encode(&mut bytes);
    assert_eq!(bytes[0], 0xDC, "array 16");
    assert_eq!(u16::from_be_bytes([bytes[1], bytes[2]]), 17);
}

#[test]
fn placing_turns_wheels_into_world_centimetres() {
    let c = car();
    let at = ActorTransform {
        location: Vector3D {
            x: 10.0,
            y: 20.0,
            z: 0.5,
        },
        rotation: Rotation3D {
            yaw: 90.0,
            ..Default::default()
        },
    };
    let placed = c.placed(&at);
    let (local, world) = (c.wheels[0].position, placed.wheels[0].position);
    // Yaw 90°: local x (forward) becomes world +y, local y becomes -x.
    assert!(
        (world.x - (10.0 - local.y) * 100.0).abs() < 1e-2,
        "{world:?}"
    );
    assert!(
        (world.y - (20.0 + local.x) * 100.0).abs() < 1e-2,
        "{world:?}"
    );
    assert!(
        (world.z - (0.5 + local.z) * 100.0).abs() < 1e-2,
        "{world:?}"
    );
    assert_eq!(placed.mass, c.mass);
}

#[test]
fn bad_controls_are_refused_with_a_reason() {
    let refused = |edit: &dyn Fn(&mut VehiclePhysicsControl), needle: &str| {
        let mut c = car();
        edit(&mut c);
        let e = round_trip(&c).unwrap_err().to_string();
        assert!(e.contains(needle), "{e:?} should name {needle:?}");
    };
    refused(&|c| c.mass = 0.0, "mass must be positive");
    refused(&|c| c.mass = f32::NAN, "mass must be finite");
    refused(&|c| c.wheels.clear(), "at least one wheel");
    refused(
        &|c| c.torque_curve = vec![[0.0, 1.0]; MAX_ENTRIES + 1],
        "torque_curve has 65 entries",
    );
    refused(
        &|c| c.wheels[1].position.x = f32::INFINITY,
        "wheel position",
    );
    let short = Value::Array(vec![Value::from(1.0); 16]);
    assert!(VehiclePhysicsControl::decode(&short)
        .unwrap_err()
        .to_string()
        .contains("expected 17 fields"));
    let bad_gear = {
        let mut bytes = Vec::new();
        car().encode(&mut bytes);
        let mut v = rmpv::decode::read_value(&mut bytes.as_slice()).unwrap();
        if let Value::Array(f) = &mut v {
            f[10] = Value::Array(vec![Value::Array(vec![Value::from(1.0)])]);
        }
        v
    };
    assert!(VehiclePhysicsControl::decode(&bad_gear)
        .unwrap_err()
        .to_string()
        .contains("forward_gears entries are 3 finite numbers"));
}

#[test]
fn the_steering_curve_interpolates_and_holds_its_ends() {
    let mut c = VehiclePhysicsControl::default_for(
        Vector3D {
            x: 2.3,
            y: 1.0,
            z: 0.75,
        },
        4,
    );
    c.steering_curve = vec![[60.0, 0.8], [0.0, 1.0], [20.0, 0.9], [f32::NAN, 0.1]];
    assert_eq!(c.steering_factor(0.0), 1.0);
    assert!((c.steering_factor(10.0) - 0.95).abs() < 1e-6);
    assert!((c.steering_factor(40.0) - 0.85).abs() < 1e-6);
    assert_eq!(c.steering_factor(500.0), 0.8);
    assert_eq!(c.steering_factor(f32::NAN), 1.0);
    c.steering_curve.clear();
    assert_eq!(c.steering_factor(30.0), 1.0);
}
