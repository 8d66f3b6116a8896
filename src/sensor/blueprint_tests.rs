//! Tests of [`super`]: the definitions, `create` and the error texts.

use super::*;

const RGB: &str = "sensor.camera.rgb";
const LIDAR: &str = "sensor.lidar.ray_cast";

fn one(id: &str, key: &str, value: &str) -> Result<SensorAttributes, BlueprintError> {
    create(id, &[(key, value)])
}

fn message(id: &str, key: &str, value: &str) -> String {
    one(id, key, value).unwrap_err().to_string()
}

fn assert_tail(msg: &str, tail: &str) {
    assert!(msg.ends_with(tail), "{msg:?} should end with {tail:?}");
}

#[test]
fn ids_are_unique_and_defaults_are_valid() {
    for (i, def) in DEFINITIONS.iter().enumerate() {
        let unique = DEFINITIONS[..i].iter().all(|d| d.id != def.id);
        assert!(unique, "{}", def.id);
        for (j, a) in def.attributes.iter().enumerate() {
            let name = format!("{}.{}", def.id, a.id);
            assert!(def.attributes[..j].iter().all(|b| b.id != a.id), "{name}");
            assert!(a.parse(a.default).is_ok(), "{name} default");
            assert!(!a.default.contains(char::is_whitespace) && !a.doc.is_empty());
        }
    }
}

/// CARLA 0.9.16's sensor blueprints, restated from its
/// `ActorBlueprintFunctionLibrary` (and the sensors' `GetSensorDefinition`):
/// `name:type=default`, type b/i/f/s. `role_name` is added by the RPC layer.
const CAMERA_0_9_16: &str = "sensor_tick:f=0.0 image_size_x:i=800 image_size_y:i=600 fov:f=90.0 \
    lens_circle_falloff:f=5.0 lens_circle_multiplier:f=0.0 lens_k:f=-1.0 lens_kcube:f=0.0 \
    lens_x_size:f=0.08 lens_y_size:f=0.08";
const RGB_POSTPROCESS_0_9_16: &str = "exposure_mode:s=histogram exposure_compensation:f=0.0 \
    shutter_speed:f=200.0 iso:f=100.0 fstop:f=1.4 enable_postprocess_effects:b=true gamma:f=2.2 \
    motion_blur_intensity:f=0.45 motion_blur_max_distortion:f=0.35 lens_flare_intensity:f=0.1 \
    bloom_intensity:f=0.675 motion_blur_min_object_screen_size:f=0.1 exposure_min_bright:f=10.0 \
    exposure_max_bright:f=12.0 exposure_speed_up:f=3.0 exposure_speed_down:f=1.0 \
    calibration_constant:f=16.0 focal_distance:f=1000.0 min_fstop:f=1.2 blade_count:i=5 \
    blur_amount:f=1.0 blur_radius:f=0.0 slope:f=0.88 toe:f=0.55 shoulder:f=0.26 black_clip:f=0.0 \
    white_clip:f=0.04 temp:f=6500.0 tint:f=0.0 chromatic_aberration_intensity:f=0.0 \
    chromatic_aberration_offset:f=0.0";
const LIDAR_0_9_16: &str = "sensor_tick:f=0.0 channels:i=32 range:f=10.0 \
    points_per_second:i=56000 rotation_frequency:f=10.0 upper_fov:f=10.0 lower_fov:f=-30.0 \
    horizontal_fov:f=360.0";
const RAY_CAST_EXTRA_0_9_16: &str = "atmosphere_attenuation_rate:f=0.004 noise_seed:i=0 \
    dropoff_general_rate:f=0.45 dropoff_intensity_limit:f=0.8 dropoff_zero_intensity:f=0.4 \
    noise_stddev:f=0.0";
/// `ADVSCamera::GetSensorDefinition`'s own attributes (CARLA writes the
/// bool's default "True"; we write "true", as every other bool).
const DVS_0_9_16: &str = "positive_threshold:f=0.3 negative_threshold:f=0.3 \
    sigma_positive_threshold:f=0.0 sigma_negative_threshold:f=0.0 refractory_period_ns:i=0 \
    use_log:b=true log_eps:f=0.001";

const OTHER_0_9_16: [(&str, &str); 9] = [
    (
        "sensor.other.gnss",
        "sensor_tick:f=0.0 noise_seed:i=0 noise_lat_stddev:f=0.0 noise_lat_bias:f=0.0 \
         noise_lon_stddev:f=0.0 noise_lon_bias:f=0.0 noise_alt_stddev:f=0.0 noise_alt_bias:f=0.0",
    ),
    (
        "sensor.other.imu",
        "sensor_tick:f=0.0 noise_seed:i=0 noise_accel_stddev_x:f=0.0 noise_accel_stddev_y:f=0.0 \
         noise_accel_stddev_z:f=0.0 noise_gyro_stddev_x:f=0.0 noise_gyro_stddev_y:f=0.0 \
         noise_gyro_stddev_z:f=0.0 noise_gyro_bias_x:f=0.0 noise_gyro_bias_y:f=0.0 \
         noise_gyro_bias_z:f=0.0",
    ),
    ("sensor.other.collision", ""),
    (
        "sensor.other.obstacle",
        "sensor_tick:f=0.0 distance:f=5.0 hit_radius:f=0.5 only_dynamics:b=false \
         debug_linetrace:b=false",
    ),
    (
        "sensor.other.radar",
        "sensor_tick:f=0.0 horizontal_fov:f=30 vertical_fov:f=30 range:f=100 \
         points_per_second:i=1500 noise_seed:i=0",
    ),
    ("sensor.other.lane_invasion", ""),
    (
        "sensor.other.safe_distance",
        "safe_distance_front:f=1.0 safe_distance_back:f=0.5 safe_distance_lateral:f=0.5 client_stream:b=false",
    ),
    (
        "sensor.other.v2x",
        "sensor_tick:f=0.0 noise_seed:i=0 transmit_power:f=21.5 receiver_sensitivity:f=-99.0 \
         frequency_ghz:f=5.9 combined_antenna_gain:f=10.0 scenario:s=highway \
         path_loss_model:s=winner path_loss_exponent:f=2.7 d_ref:f=1.0 filter_distance:f=500.0 \
         use_etsi_fading:b=true custom_fading_stddev:f=0.0 gen_cam_min:f=0.1 gen_cam_max:f=1.0 \
         fixed_rate:b=false noise_lat_stddev:f=0.0 noise_lat_bias:f=0.0 noise_lon_stddev:f=0.0 \
         noise_lon_bias:f=0.0 noise_alt_stddev:f=0.0 noise_alt_bias:f=0.0 noise_head_stddev:f=0.0 \
         noise_head_bias:f=0.0 noise_accel_stddev_x:f=0.0 noise_accel_stddev_y:f=0.0 \
         noise_accel_stddev_z:f=0.0 noise_yawrate_stddev:f=0.0 noise_yawrate_bias:f=0.0 \
         noise_vel_stddev_x:f=0.0",
    ),
    (
        "sensor.other.v2x_custom",
        "sensor_tick:f=0.0 noise_seed:i=0 transmit_power:f=21.5 receiver_sensitivity:f=-99.0 \
         frequency_ghz:f=5.9 combined_antenna_gain:f=10.0 scenario:s=highway \
         path_loss_model:s=winner path_loss_exponent:f=2.7 d_ref:f=1.0 filter_distance:f=500.0 \
         use_etsi_fading:b=true custom_fading_stddev:f=0.0",
    ),
];

fn listing(def: &SensorDefinition) -> Vec<String> {
    let mut out: Vec<String> = (def.attributes.iter())
        .map(|a| {
            let ty = &a.ty.to_string()[..1];
            format!("{}:{ty}={}", a.id, a.default)
        })
        .collect();
    out.sort();
    out
}

fn expected(parts: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = parts
        .iter()
        .flat_map(|p| p.split_whitespace().map(str::to_owned))
        .collect();
    out.sort();
    out
}

#[test]
fn every_blueprint_matches_carla_0_9_16() {
    let mut cases: Vec<(&str, Vec<String>)> = vec![
        (RGB, expected(&[CAMERA_0_9_16, RGB_POSTPROCESS_0_9_16])),
        ("sensor.camera.depth", expected(&[CAMERA_0_9_16])),
        (
            "sensor.camera.semantic_segmentation",
            expected(&[CAMERA_0_9_16]),
        ),
        (
            "sensor.camera.instance_segmentation",
            expected(&[CAMERA_0_9_16]),
        ),
        (LIDAR, expected(&[LIDAR_0_9_16, RAY_CAST_EXTRA_0_9_16])),
        ("sensor.lidar.ray_cast_semantic", expected(&[LIDAR_0_9_16])),
        (
            "sensor.camera.dvs",
            expected(&[CAMERA_0_9_16, RGB_POSTPROCESS_0_9_16, DVS_0_9_16]),
        ),
        ("sensor.camera.optical_flow", expected(&[CAMERA_0_9_16])),
        ("sensor.camera.normals", expected(&[CAMERA_0_9_16])),
        (
            "sensor.camera.cosmos_visualization",
            expected(&[CAMERA_0_9_16]),
        ),
    ];
    cases.extend(OTHER_0_9_16.iter().map(|(id, l)| (*id, expected(&[l]))));
    assert_eq!(cases.len(), DEFINITIONS.len(), "one case per blueprint");
    for (id, want) in cases {
        let def = find(id).unwrap_or_else(|| panic!("{id} is defined"));
        assert_eq!(listing(def), want, "{id}");
    }
    let counts: Vec<(&str, usize)> = DEFINITIONS
        .iter()
        .map(|d| (d.id, d.attributes.len()))
        .collect();
    assert!(counts.contains(&(RGB, 41)) && counts.contains(&("sensor.other.imu", 11)));
    // The one restricted attribute keeps CARLA's recommended values, default first.
    let mode = find(RGB).unwrap().attribute("exposure_mode").unwrap();
    assert_eq!(mode.allowed, ["histogram", "manual"]);
}

#[test]
fn defaults_parse_as_the_0_9_16_client_reads_them() {
    // The client reads ints as int32, floats as float, bools as true/false.
    for def in DEFINITIONS {
        for a in def.attributes {
            let name = format!("{}.{}", def.id, a.id);
            match a.ty {
                AttributeType::Bool => assert!(["true", "false"].contains(&a.default), "{name}"),
                AttributeType::Int => assert!(a.default.parse::<i32>().is_ok(), "{name}"),
                AttributeType::Float => {
                    let v = a.default.parse::<f32>();
                    assert!(v.is_ok_and(f32::is_finite), "{name}");
                }
                AttributeType::String => assert!(a.allowed.contains(&a.default), "{name}"),
            }
        }
    }
}

#[test]
fn new_sensors_read_back_given_values_and_refuse_unknown_ones() {
    let radar = create(
        "sensor.other.radar",
        &[("range", "150"), ("points_per_second", "3000")],
    );
    let radar = radar.unwrap();
    assert_eq!(radar.get_f64("range"), Some(150.0));
    assert_eq!(radar.get_i64("points_per_second"), Some(3000));
    assert_eq!(radar.get_f64("horizontal_fov"), Some(30.0));
    assert_eq!(radar.sensor_tick(), 0.0);
    let obstacle = create(
        "sensor.other.obstacle",
        &[("only_dynamics", "True"), ("sensor_tick", "0.5")],
    );
    let obstacle = obstacle.unwrap();
    assert_eq!(obstacle.get_bool("only_dynamics"), Some(true));
    assert_eq!(obstacle.get_bool("debug_linetrace"), Some(false));
    assert_eq!(obstacle.get_f64("distance"), Some(5.0));
    assert_eq!(obstacle.sensor_tick(), 0.5);
    let imu = create("sensor.other.imu", &[("noise_gyro_bias_z", "-0.25")]).unwrap();
    assert_eq!(imu.get_f64("noise_gyro_bias_z"), Some(-0.25));
    assert_eq!(imu.get_f64("noise_gyro_bias_x"), Some(0.0));
    let collision = create("sensor.other.collision", &[]).unwrap();
    assert_eq!(
        (collision.iter().count(), collision.sensor_tick()),
        (0, 0.0)
    );

    let err = create("sensor.other.collision", &[("sensor_tick", "1")]).unwrap_err();
    let msg = "sensor \"sensor.other.collision\" has no attribute \"sensor_tick\"";
    assert_eq!(err.to_string(), msg);
    let err = one("sensor.other.gnss", "noise_lat_stddev", "-1").unwrap_err();
    assert!(matches!(err, BlueprintError::BadValue { .. }), "{err}");
    let msg = message("sensor.other.radar", "horizontal_fov", "180");
    assert_tail(&msg, "expected a finite float in (0, 180)");
    let msg = message("sensor.other.obstacle", "debug_linetrace", "yes");
    assert_tail(&msg, "expected a bool (true/false/1/0)");
    let msg = message("sensor.camera.instance_segmentation", "gamma", "2.2");
    assert_tail(&msg, "has no attribute \"gamma\"");
}

#[test]
fn defaults_are_filled_in() {
    let sd = create("sensor.other.safe_distance", &[]).unwrap();
    assert_eq!(sd.get_f32("safe_distance_front"), Some(1.0));
    assert_eq!(sd.get_f32("safe_distance_back"), Some(0.5));
    assert_eq!(sd.get_f32("safe_distance_lateral"), Some(0.5));
    let lidar = create(LIDAR, &[]).unwrap();
    assert_eq!(lidar.get_f32("range"), Some(10.0));
    assert_eq!(lidar.get_u32("channels"), Some(32));
    assert_eq!(lidar.get_u32("points_per_second"), Some(56000));
    assert_eq!(lidar.get_f64("lower_fov"), Some(-30.0));
    assert_eq!(lidar.get_f64("atmosphere_attenuation_rate"), Some(0.004));
    assert_eq!(lidar.get_u32("noise_seed"), Some(0));
    assert_eq!(lidar.iter().count(), 14);
    let semantic = create("sensor.lidar.ray_cast_semantic", &[]).unwrap();
    assert_eq!(semantic.get_f32("horizontal_fov"), Some(360.0));
    assert_eq!(semantic.get("dropoff_general_rate"), None);
    let cameras = [
        RGB,
        "sensor.camera.depth",
        "sensor.camera.semantic_segmentation",
        "sensor.camera.instance_segmentation",
    ];
    for id in cameras {
        let cam = create(id, &[]).unwrap();
        assert_eq!(cam.get_u32("image_size_x"), Some(800), "{id}");
        assert_eq!(cam.get_u32("image_size_y"), Some(600), "{id}");
        assert_eq!(cam.get_f32("fov"), Some(90.0), "{id}");
        assert_eq!(cam.get_f32("sensor_tick"), Some(0.0), "{id}");
        assert_eq!(cam.id(), id);
    }
    let rgb = create(RGB, &[]).unwrap();
    assert_eq!(rgb.get_bool("enable_postprocess_effects"), Some(true));
    assert_eq!(rgb.get_str("exposure_mode"), Some("histogram"));
}

#[test]
fn overrides_and_typed_getters() {
    let pairs = [
        ("range", "50"),
        ("channels", " 64 "),
        ("noise_stddev", "0.02"),
    ];
    let lidar = create(LIDAR, &pairs).unwrap();
    assert_eq!(lidar.get_f32("range"), Some(50.0));
    assert_eq!(lidar.get_u32("channels"), Some(64));
    assert_eq!(lidar.get_f64("noise_stddev"), Some(0.02));
    assert_eq!(lidar.get_f32("upper_fov"), Some(10.0));
    // Wrong type or unknown key: None, never a panic.
    assert_eq!(lidar.get_u32("range"), None);
    assert_eq!(lidar.get_f32("channels"), None);
    assert_eq!(lidar.get_bool("range"), None);
    assert_eq!(lidar.get_str("nope"), None);
    let pairs = [("image_size_x", "1920"), ("exposure_mode", "manual")];
    let rgb = create(RGB, &pairs).unwrap();
    assert_eq!(rgb.get_u32("image_size_x"), Some(1920));
    assert_eq!(rgb.get_str("exposure_mode"), Some("manual"));
    assert_eq!(rgb.get("fov"), Some(&AttributeValue::Float(90.0)));
    assert!(find(RGB).unwrap().attribute("gamma").is_some());
    assert!(find("sensor.camera.thermal").is_none());
}

#[test]
fn booleans_ignore_case() {
    let key = "enable_postprocess_effects";
    let cases = [
        ("true", true),
        ("TRUE", true),
        ("True", true),
        ("1", true),
        ("false", false),
        ("FaLsE", false),
        ("0", false),
    ];
    for (text, expected) in cases {
        let rgb = one(RGB, key, text).unwrap();
        assert_eq!(rgb.get_bool(key), Some(expected), "{text}");
    }
    for text in ["yes", "2", "", "t", "on"] {
        let err = one(RGB, key, text).unwrap_err();
        assert!(matches!(err, BlueprintError::BadValue { .. }), "{text}");
    }
}

#[test]
fn values_at_bounds() {
    let depth = "sensor.camera.depth";
    let cases = [
        (depth, "image_size_x", "16384", true),
        (depth, "image_size_x", "16385", false),
        (depth, "image_size_y", "1", true),
        (depth, "image_size_y", "0", false),
        (depth, "fov", "179.9", true),
        (depth, "fov", "180", false),
        (depth, "fov", "0", false),
        (LIDAR, "dropoff_general_rate", "1.0", true),
        (LIDAR, "dropoff_general_rate", "1.0001", false),
        (LIDAR, "horizontal_fov", "360", true),
        (LIDAR, "channels", "1", true),
        (LIDAR, "channels", "0", false),
        // As CARLA's Atoi: the integer part of a number with a fraction
        // (lidar_to_camera.py sends str(64.0)).
        (LIDAR, "channels", "32.0", true),
        (LIDAR, "channels", "0.5", false),
        (LIDAR, "channels", "32x", false),
        (LIDAR, "sensor_tick", "0", true),
        (LIDAR, "sensor_tick", "-0.1", false),
        (LIDAR, "noise_seed", "4294967295", true),
        (LIDAR, "noise_seed", "4294967296", false),
        (LIDAR, "range", "NaN", false),
        (LIDAR, "range", "inf", false),
        (LIDAR, "range", "", false),
    ];
    for (id, key, value, ok) in cases {
        assert_eq!(one(id, key, value).is_ok(), ok, "{id} {key}={value:?}");
    }
}

#[test]
fn errors_and_messages() {
    let err = create("sensor.camera.thermal", &[]).unwrap_err();
    let thermal = "sensor.camera.thermal".to_owned();
    assert_eq!(err, BlueprintError::UnknownSensor(thermal));
    let msg = err.to_string();
    let head = "unknown sensor blueprint \"sensor.camera.thermal\" (known: sensor.other";
    assert!(msg.starts_with(head), "{msg}");
    assert_tail(&msg, " sensor.other.v2x sensor.other.v2x_custom)");

    let sensor = "sensor.lidar.ray_cast_semantic";
    let err = one(sensor, "noise_stddev", "0.1").unwrap_err();
    let key = "noise_stddev".to_owned();
    assert_eq!(err, BlueprintError::UnknownAttribute { sensor, key });
    let msg = "sensor \"sensor.lidar.ray_cast_semantic\" has no attribute \"noise_stddev\"";
    assert_eq!(err.to_string(), msg);

    let err = one(RGB, "exposure_mode", "Manual").unwrap_err();
    assert!(matches!(&err, BlueprintError::BadValue { .. }));
    let msg = "invalid value \"Manual\" for attribute \"exposure_mode\": expected one of: ";
    assert_eq!(err.to_string(), format!("{msg}histogram, manual"));
    let msg = "invalid value \"-3\" for attribute \"channels\": expected an int in [1, 256]";
    assert_eq!(message(LIDAR, "channels", "-3"), msg);
    let msg = message(RGB, "fov", "200");
    assert_tail(&msg, "\"fov\": expected a finite float in (0, 180)");
    let msg = message("sensor.other.safe_distance", "safe_distance_back", "x");
    assert_tail(&msg, "expected a finite float in [0, inf)");
    let msg = message(RGB, "enable_postprocess_effects", "on");
    assert_tail(&msg, "expected a bool (true/false/1/0)");
    let msg = message(RGB, "exposure_mode", "auto");
    assert_tail(&msg, "expected one of: histogram, manual");

    let pairs = [("fov", "60"), ("image_size_x", "10"), ("fov", "70")];
    let err = create(RGB, &pairs).unwrap_err();
    let (sensor, key) = (RGB, "fov".to_owned());
    assert_eq!(err, BlueprintError::DuplicateAttribute { sensor, key });
    let msg = "attribute \"fov\" of sensor \"sensor.camera.rgb\" is given more than once";
    assert_eq!(err.to_string(), msg);
}

#[test]
fn describe_all_lists_every_attribute() {
    let text = describe_all();
    let total: usize = DEFINITIONS.iter().map(|d| d.attributes.len()).sum();
    assert_eq!(text.lines().count(), total);
    assert!(text.lines().all(|l| l.split(' ').count() == 4));
    for line in [
        "sensor.lidar.ray_cast range float 10.0",
        "sensor.other.safe_distance safe_distance_front float 1.0",
        "sensor.camera.rgb image_size_x int 800",
        "sensor.camera.rgb enable_postprocess_effects bool true",
        "sensor.camera.rgb exposure_mode string histogram",
        "sensor.camera.semantic_segmentation sensor_tick float 0.0",
        "sensor.other.radar range float 100",
        "sensor.other.obstacle only_dynamics bool false",
        "sensor.other.gnss noise_seed int 0",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}");
    }
}
