use super::*;
use crate::ros2::cdr::Reader;
use crate::types::Rotation3D;

fn v(x: f32, y: f32, z: f32) -> Vector3D {
    Vector3D { x, y, z }
}

fn read3(r: &mut Reader) -> [f64; 3] {
    [r.f64().unwrap(), r.f64().unwrap(), r.f64().unwrap()]
}

fn read_header(r: &mut Reader) -> (i32, u32, String) {
    (r.i32().unwrap(), r.u32().unwrap(), r.string().unwrap())
}

#[test]
fn vehicle_info_has_the_wheels_and_physics_in_ros_axes() {
    let wheel = |y: f32| WheelInfo {
        tire_friction: 3.5,
        damping_rate: 0.25,
        max_steer_angle: 1.2,
        radius: 0.35,
        max_brake_torque: 1500.0,
        max_handbrake_torque: 3000.0,
        position: v(1.4, y, -0.3),
    };
    let info = VehicleInfo {
        id: 42,
        type_id: "vehicle.tesla.model3".into(),
        role_name: "hero".into(),
        wheels: vec![wheel(-0.8), wheel(0.8)],
        max_rpm: 15000.0,
        moi: 1.0,
        damping_rate_full_throttle: 0.15,
        damping_rate_zero_throttle_clutch_engaged: 2.0,
        damping_rate_zero_throttle_clutch_disengaged: 0.35,
        use_gear_autobox: true,
        gear_switch_time: 0.5,
        clutch_strength: 10.0,
        mass: 1845.0,
        drag_coefficient: 0.15,
        center_of_mass: v(0.1, 0.2, -0.4),
    };
    let out = vehicle_info(&info);
    let mut r = Reader::new(&out);
    assert_eq!(r.u32().unwrap(), 42);
    assert_eq!(r.string().unwrap(), "vehicle.tesla.model3");
    assert_eq!(r.string().unwrap(), "hero");
    assert_eq!(r.u32().unwrap(), 2, "two wheels");
    for y in [0.8, -0.8] {
        let fields: Vec<f32> = (0..6).map(|_| r.f32().unwrap()).collect();
        assert_eq!(fields, [3.5, 0.25, 1.2, 0.35, 1500.0, 3000.0]);
        let p = read3(&mut r);
        assert!(
            (p[0] - 1.4).abs() < 1e-6 && (p[1] - y).abs() < 1e-6,
            "{p:?}"
        );
    }
    let engine: Vec<f32> = (0..5).map(|_| r.f32().unwrap()).collect();
    assert_eq!(engine, [15000.0, 1.0, 0.15, 2.0, 0.35]);
    assert_eq!(r.u8().unwrap(), 1, "automatic gearbox");
    let rest: Vec<f32> = (0..4).map(|_| r.f32().unwrap()).collect();
    assert_eq!(rest, [0.5, 10.0, 1845.0, 0.15]);
    let c = read3(&mut r);
    assert!((c[1] + 0.2).abs() < 1e-6, "centre of mass y negated: {c:?}");
    assert!(r.u8().is_err(), "nothing after the centre of mass");
}

#[test]
fn objects_carry_pose_twist_box_and_class() {
    let o = Object {
        id: 7,
        class: class::TRUCK,
        transform: ActorTransform {
            location: v(10.0, 20.0, 1.0),
            rotation: Rotation3D::default(),
        },
        extent: v(2.0, 1.0, 1.5),
        velocity: v(3.0, 4.0, 0.0),
        angular: v(0.0, 0.0, 90.0),
        acceleration: v(1.0, -1.0, 0.0),
    };
    let out = objects(Stamp { sec: 3, nanosec: 5 }, &[o]);
    let mut r = Reader::new(&out);
    assert_eq!(read_header(&mut r), (3, 5, "map".into()));
    assert_eq!(r.u32().unwrap(), 1, "one object");
    assert_eq!(read_header(&mut r), (3, 5, "map".into()));
    assert_eq!(r.u32().unwrap(), 7);
    assert_eq!(
        (r.u8().unwrap(), r.u8().unwrap()),
        (0, 1),
        "detected, classified"
    );
    assert_eq!(read3(&mut r), [10.0, -20.0, 1.0], "position, y negated");
    let q = [
        r.f64().unwrap(),
        r.f64().unwrap(),
        r.f64().unwrap(),
        r.f64().unwrap(),
    ];
    assert_eq!(q, [0.0, 0.0, 0.0, 1.0], "no rotation");
    assert_eq!(read3(&mut r), [3.0, -4.0, 0.0], "linear velocity");
    let spin = read3(&mut r);
    assert!(
        (spin[2] + std::f64::consts::FRAC_PI_2).abs() < 1e-6,
        "yaw rate: {spin:?}"
    );
    assert_eq!(read3(&mut r), [1.0, 1.0, 0.0], "linear acceleration");
    assert_eq!(read3(&mut r), [0.0; 3], "angular acceleration");
    assert_eq!(r.u32().unwrap(), 0, "no polygon");
    assert_eq!(r.u8().unwrap(), 1, "a BOX");
    assert_eq!(r.u32().unwrap(), 3);
    assert_eq!(read3(&mut r), [4.0, 2.0, 3.0], "full sizes");
    assert_eq!(r.u32().unwrap(), 0, "the shape's polygon");
    assert_eq!(r.u8().unwrap(), class::TRUCK);
    assert_eq!(r.u8().unwrap(), 255, "certainty");
    assert_eq!(r.u32().unwrap(), 0, "age");
    assert!(r.u8().is_err(), "nothing after the object");
}

#[test]
fn traffic_light_info_has_pose_and_trigger_volume() {
    let light = LightInfo {
        id: 300,
        transform: ActorTransform {
            location: v(5.0, 6.0, 0.0),
            rotation: Rotation3D::default(),
        },
        trigger_center: v(1.0, 2.0, 0.5),
        trigger_extent: v(1.5, 3.0, 1.0),
    };
    let out = traffic_light_info(&[light]);
    let mut r = Reader::new(&out);
    assert_eq!(r.u32().unwrap(), 1);
    assert_eq!(r.u32().unwrap(), 300);
    assert_eq!(read3(&mut r), [5.0, -6.0, 0.0]);
    let _quaternion = (read3(&mut r), r.f64().unwrap());
    assert_eq!(read3(&mut r), [1.0, -2.0, 0.5], "centre, y negated");
    assert_eq!(read3(&mut r), [3.0, 6.0, 2.0], "full sizes");
    assert!(r.u8().is_err(), "nothing after the light");
}

#[test]
fn the_rep105_chain_is_one_tf_message() {
    let (odom, base) = rep105_frames("hero");
    assert_eq!((odom.as_str(), base.as_str()), ("odom", "base_link"));
    assert_eq!(
        rep105_frames("ego2"),
        ("ego2/odom".into(), "ego2/base_link".into())
    );
    let pose = ActorTransform {
        location: v(1.0, 2.0, 3.0),
        rotation: Rotation3D::default(),
    };
    let same = ActorTransform::default();
    let links = [
        ("map", "odom", &same),
        ("odom", "base_link", &pose),
        ("base_link", "hero", &same),
    ];
    let out = tf_chain(Stamp { sec: 1, nanosec: 0 }, &links);
    let mut r = Reader::new(&out);
    assert_eq!(r.u32().unwrap(), 3);
    for (parent, child, t) in links {
        assert_eq!(read_header(&mut r), (1, 0, parent.to_owned()));
        assert_eq!(r.string().unwrap(), child);
        let l = t.location;
        let want = [f64::from(l.x), -f64::from(l.y), f64::from(l.z)];
        assert_eq!(read3(&mut r), want);
        let _quaternion = (read3(&mut r), r.f64().unwrap());
    }
    assert!(r.u8().is_err(), "nothing after the chain");
}
