use super::cam::{self, station, HighFrequency};
use super::*;
use crate::sensor::models::gnss::GeoReference;

fn i64_at(r: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(r[at..at + 8].try_into().unwrap())
}

fn car() -> StationKind {
    StationKind::Vehicle {
        station_type: station::PASSENGER_CAR,
        vehicle_role: 0,
    }
}

fn moving(x: f32, speed: f32) -> StationState {
    StationState {
        location: Vector3D { x, y: 0.0, z: 0.0 },
        forward_speed: speed,
        extent: Vector3D {
            x: 2.25,
            y: 0.9,
            z: 0.75,
        },
        acceleration: Vector3D {
            x: 1.0,
            y: 0.5,
            z: 9.81,
        },
        ..Default::default()
    }
}

/// Times (s) at which a car driving at `speed` m/s generates CAMs in the
/// first `seconds`, ticking every 50 ms.
fn cam_times(settings: CamSettings, speed: f32, seconds: f64) -> Vec<f64> {
    let mut ca = CaService::new(settings, 7, car(), 1);
    let geo = GeoReference::default();
    let mut times = Vec::new();
    for i in 0..=((seconds / 0.05).round() as u32) {
        let t = f64::from(i) * 0.05;
        if ca
            .trigger(t, &moving(speed * t as f32, speed), &geo)
            .is_some()
        {
            times.push((t * 1000.0).round() / 1000.0);
        }
    }
    times
}

#[test]
fn a_standing_car_sends_once_a_second_and_a_fast_one_ten_times() {
    let s = CamSettings::default();
    assert_eq!(cam_times(s, 0.0, 3.0), [0.0, 1.0, 2.0, 3.0]);
    // 10 m/s: 4 m are passed after 0.45 s (moved > 4 m is strict).
    assert_eq!(cam_times(s, 10.0, 1.5), [0.0, 0.45, 0.9, 1.35]);
    // 60 m/s: 6 m per 0.1 s, gen_cam_min bounds it.
    assert_eq!(cam_times(s, 60.0, 0.5), [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    let fixed = CamSettings {
        fixed_rate: true,
        gen_cam_min: 0.2,
        ..s
    };
    assert_eq!(cam_times(fixed, 0.0, 1.0), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
}

#[test]
fn a_cam_says_where_the_car_is_and_how_it_moves() {
    let geo = GeoReference {
        latitude: 49.0,
        longitude: 8.4,
        altitude: 100.0,
    };
    let mut ca = CaService::new(CamSettings::default(), 42, car(), 1);
    let mut state = moving(0.0, 12.34);
    state.yaw = -90.0; // north in the host's frame (y points south)
    state.lights = 2 | 32; // low beam, left blinker
    let cam = ca.trigger(0.0, &state, &geo).unwrap();
    assert_eq!(cam.header.station_id, 42);
    assert_eq!(cam.header.message_id, cam::MESSAGE_ID_CAM);
    assert_eq!(cam.station_type, station::PASSENGER_CAR);
    assert_eq!(cam.latitude, 490_000_000);
    assert_eq!(cam.longitude, 84_000_000);
    assert_eq!(cam.altitude, 10_000);
    let HighFrequency::Vehicle(v) = cam.high_frequency else {
        panic!("no vehicle container: {:?}", cam.high_frequency)
    };
    assert_eq!(v.heading, 0, "north is heading 0");
    assert_eq!(v.speed, 1234);
    assert_eq!(v.length, 45);
    assert_eq!(v.width, 18);
    assert_eq!(v.longitudinal_acceleration, 10);
    assert_eq!(v.lateral_acceleration, Some(-5), "to the right is negative");
    let low = cam.low_frequency.unwrap();
    assert_eq!(low.exterior_lights, 0b1010_0000);
    state.yaw = 0.0;
    let east = ca.trigger(0.5, &state, &geo).unwrap();
    let HighFrequency::Vehicle(v) = east.high_frequency else {
        panic!()
    };
    assert_eq!(v.heading, 900);
    assert_eq!(east.generation_delta_time, 500);
    assert!(east.low_frequency.is_some(), "0.5 s after the last");
}

#[test]
fn a_road_side_unit_sends_every_half_second_without_vehicle_data() {
    let mut ca = CaService::new(CamSettings::default(), 3, StationKind::RoadSideUnit, 1);
    let geo = GeoReference::default();
    let s = StationState::default();
    let sent: Vec<u32> = (0..25)
        .filter(|i| ca.trigger(f64::from(*i) * 0.1, &s, &geo).is_some())
        .collect();
    assert_eq!(sent, [0, 5, 10, 15, 20]);
    let mut out = Vec::new();
    let mut ca = CaService::new(CamSettings::default(), 3, StationKind::RoadSideUnit, 1);
    cam::write_cam(&mut out, -60.0, &ca.trigger(0.0, &s, &geo).unwrap());
    assert_eq!(i64_at(&out, 40), station::ROAD_SIDE_UNIT);
    assert_eq!(i64_at(&out, 104), 2, "RSU container present");
    assert!(
        out[376..408].iter().all(|b| *b == 0),
        "no zones, no pointers"
    );
}

#[test]
fn a_cam_record_has_the_clients_layout() {
    let mut ca = CaService::new(CamSettings::default(), 9, car(), 1);
    let cam = ca
        .trigger(1.25, &moving(0.0, 5.0), &GeoReference::default())
        .unwrap();
    let mut out = Vec::new();
    cam::write_cam(&mut out, -71.5, &cam);
    cam::write_cam(&mut out, -80.0, &cam);
    assert_eq!(out.len(), 2 * cam::CAM_RECORD_BYTES);
    assert_eq!(f32::from_le_bytes(out[0..4].try_into().unwrap()), -71.5);
    assert_eq!(i64_at(&out, 8), 2, "protocol version");
    assert_eq!(i64_at(&out, 16), 2, "CAM");
    assert_eq!(i64_at(&out, 24), 9, "station id");
    assert_eq!(i64_at(&out, 32), 1250, "generation delta time");
    assert_eq!(i64_at(&out, 104), 1, "vehicle container present");
    assert_eq!(i64_at(&out, 128), 500, "speed, cm/s");
    assert_eq!(out[272], 1, "lateral acceleration present");
    assert_eq!(i64_at(&out, 304), 98, "vertical acceleration (gravity)");
    assert_eq!(i64_at(&out, 408), 1, "low-frequency container present");
    assert!(out[432..464].iter().all(|b| *b == 0), "empty path history");
    let second = &out[cam::CAM_RECORD_BYTES..];
    assert_eq!(f32::from_le_bytes(second[0..4].try_into().unwrap()), -80.0);
    assert_eq!(i64_at(second, 24), 9);
}

#[test]
fn a_custom_record_holds_the_text_cut_to_the_field() {
    let header = PduHeader {
        protocol_version: 2,
        message_id: cam::MESSAGE_ID_CUSTOM,
        station_id: 5,
    };
    let mut out = Vec::new();
    cam::write_custom(&mut out, -50.0, &header, "hello");
    assert_eq!(out.len(), cam::CUSTOM_RECORD_BYTES);
    assert_eq!(&out[32..38], b"hello\0");
    let long = "é".repeat(60); // 120 bytes
    assert_eq!(
        cam::fit_text(&long).len(),
        98,
        "cut at a character boundary"
    );
    assert_eq!(cam::fit_text("a\0b"), "a");
    let mut out = Vec::new();
    cam::write_custom(&mut out, 0.0, &header, &"x".repeat(500));
    assert_eq!(out.len(), cam::CUSTOM_RECORD_BYTES);
    assert_eq!(out[32 + 98], b'x');
    assert_eq!(out[32 + 99], 0, "always NUL-terminated");
}

fn link(distance: f32, path: Path) -> Link {
    Link {
        distance,
        tx_height: 1.5,
        rx_height: 1.5,
        path,
    }
}

fn quiet(model: Model) -> Propagation {
    Propagation {
        use_etsi_fading: false,
        model,
        ..Default::default()
    }
}

#[test]
fn path_loss_follows_the_documented_models() {
    let winner = Propagation {
        scenario: Scenario::Highway,
        ..quiet(Model::Winner)
    };
    let l = winner.path_loss(100.0, &link(100.0, Path::Clear));
    assert!(
        (l - (32.4 + 40.0 + 20.0 * 5.9f64.log10())).abs() < 1e-3,
        "{l}"
    );
    let urban = quiet(Model::Winner);
    let blocked = urban.path_loss(100.0, &link(100.0, Path::Blocked));
    assert!((blocked - (36.85 + 60.0 + 18.9 * 5.9f64.log10())).abs() < 1e-3);
    let g = quiet(Model::Geometric);
    // Free space at the reference distance plus 27 dB per decade.
    let b10 = g.path_loss(10.0, &link(10.0, Path::Blocked));
    let b100 = g.path_loss(100.0, &link(100.0, Path::Blocked));
    assert!((b100 - b10 - 27.0).abs() < 1e-6);
    assert!(
        (b10 - 27.0 - 47.86).abs() < 0.05,
        "FSPL(1 m) at 5.9 GHz: {b10}"
    );
    // Two rays: near free space close by, 40 dB a decade past the
    // break point (4 ht hr / lambda = 177 m here).
    let near = g.path_loss(5.0, &link(5.0, Path::Clear));
    assert!((near - (47.86 + 20.0 * 5f64.log10())).abs() < 6.0, "{near}");
    let far = g.path_loss(10_000.0, &link(10_000.0, Path::Clear))
        - g.path_loss(1000.0, &link(1000.0, Path::Clear));
    assert!((far - 40.0).abs() < 3.0, "{far}");
}

#[test]
fn a_vehicle_in_the_way_costs_more_the_higher_it_reaches() {
    let g = quiet(Model::Geometric);
    let clear = g.path_loss(50.0, &link(50.0, Path::Vehicles(&[])));
    let edge = |height| Obstruction {
        from_tx: 25.0,
        to_rx: 25.0,
        height,
    };
    let at = |h: f32| {
        let o = [edge(h)];
        g.path_loss(50.0, &link(50.0, Path::Vehicles(&o))) - clear
    };
    assert!(at(-2.0).abs() < 1e-9, "well below the line: nothing");
    assert!(
        (at(0.0) - 6.0).abs() < 0.1,
        "grazing: 6 dB, got {}",
        at(0.0)
    );
    assert!(at(1.0) > at(0.3) && at(0.3) > 6.5);
}

#[test]
fn a_message_arrives_only_within_reach_and_fading_repeats_by_seed() {
    let quiet = quiet(Model::Geometric);
    assert_eq!(
        Propagation::default().model,
        Model::Winner,
        "CARLA's default"
    );
    let mut rng = Fading::new(1);
    let p = quiet
        .received_power(21.5, &link(100.0, Path::Clear), &mut rng)
        .unwrap();
    let expected = 21.5 + 10.0 - quiet.path_loss(100.0, &link(100.0, Path::Clear));
    assert!((f64::from(p) - expected).abs() < 1e-3);
    assert_eq!(
        quiet.received_power(21.5, &link(600.0, Path::Clear), &mut rng),
        None,
        "past filter_distance"
    );
    let deaf = Propagation {
        receiver_sensitivity: -60.0,
        ..quiet
    };
    assert_eq!(
        deaf.received_power(21.5, &link(400.0, Path::Blocked), &mut rng),
        None
    );
    assert_eq!(
        quiet.received_power(21.5, &link(f32::NAN, Path::Clear), &mut rng),
        None
    );
    let etsi = Propagation {
        scenario: Scenario::Urban,
        ..quiet
    };
    let etsi = Propagation {
        use_etsi_fading: true,
        ..etsi
    };
    let draws = |seed| {
        let mut rng = Fading::new(seed);
        (0..50)
            .map(|_| {
                etsi.received_power(21.5, &link(100.0, Path::Clear), &mut rng)
                    .unwrap()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(draws(3), draws(3));
    let spread = draws(3)
        .iter()
        .map(|p| (f64::from(*p) - expected).powi(2))
        .sum::<f64>()
        / 50.0;
    assert!(
        spread.sqrt() > 3.0 && spread.sqrt() < 8.0,
        "urban LOS sigma 5.2 dB: {}",
        spread.sqrt()
    );
}

#[test]
fn settings_come_from_the_blueprint_attributes() {
    let s = V2xSettings::from_attributes([
        ("path_loss_model", "winner"),
        ("scenario", "highway"),
        ("transmit_power", "30"),
        ("gen_cam_min", "0.5"),
        ("gen_cam_max", "0.2"),
        ("fixed_rate", "True"),
        ("noise_seed", "77"),
        ("frequency_ghz", "nan"),
    ]);
    assert_eq!(s.propagation.model, Model::Winner);
    assert_eq!(s.propagation.scenario, Scenario::Highway);
    assert_eq!(s.propagation.transmit_power, 30.0);
    assert_eq!(s.propagation.frequency_ghz, 5.9, "NaN keeps the default");
    assert!(s.cam.fixed_rate);
    assert_eq!(s.cam.gen_cam_max, 0.5, "max is at least min");
    assert_eq!(s.noise_seed, 77);
}

#[test]
fn exterior_lights_map_carla_flags_to_etsi_bits() {
    use super::ca_service::exterior_lights;
    assert_eq!(exterior_lights(0), 0);
    assert_eq!(exterior_lights(2), 0x80, "low beam is the first bit");
    assert_eq!(
        exterior_lights(1),
        0x01,
        "position: parking lights, the last"
    );
    assert_eq!(exterior_lights(16 | 64), 0x10 | 0x04);
}
