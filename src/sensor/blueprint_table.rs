//! The sensor blueprint table: every blueprint id with its attributes as
//! CARLA 0.9.16 defines them (`ActorBlueprintFunctionLibrary`: the names,
//! value types and recommended values, written here exactly as CARLA writes
//! them), plus `sensor.other.safe_distance` of the "add a new sensor"
//! tutorial. CARLA's own `role_name` (and the ROS attributes) are not sensor
//! attributes; the RPC layer adds `role_name` to every blueprint.
//!
//! Bounds are our own and only refuse values that mean nothing (negative
//! sizes or rates, angles out of their range, NaN); CARLA itself checks none.

use super::blueprint::{AttributeDefinition as Def, AttributeType as Ty, SensorDefinition};
use std::ops::Bound::{self, Excluded as Exc, Included as Inc, Unbounded as Unb};

const fn float(id: &'static str, default: &'static str, lo: Bound<f64>, hi: Bound<f64>, doc: &'static str) -> Def {
    Def { id, ty: Ty::Float, default, range: (lo, hi), allowed: &[], doc }
}
const fn int(id: &'static str, default: &'static str, lo: i64, hi: i64, doc: &'static str) -> Def {
    Def { id, ty: Ty::Int, default, range: (Inc(lo as f64), Inc(hi as f64)), allowed: &[], doc }
}
const fn boolean(id: &'static str, default: &'static str, doc: &'static str) -> Def {
    Def { id, ty: Ty::Bool, default, range: (Unb, Unb), allowed: &[], doc }
}
const fn string(id: &'static str, default: &'static str, allowed: &'static [&'static str], doc: &'static str) -> Def {
    Def { id, ty: Ty::String, default, range: (Unb, Unb), allowed, doc }
}
/// Any finite float.
const fn any(id: &'static str, default: &'static str, doc: &'static str) -> Def {
    float(id, default, Unb, Unb, doc)
}
/// A finite float ≥ 0.
const fn non_negative(id: &'static str, default: &'static str, doc: &'static str) -> Def {
    float(id, default, Inc(0.0), Unb, doc)
}
/// A finite float > 0.
const fn positive(id: &'static str, default: &'static str, doc: &'static str) -> Def {
    float(id, default, Exc(0.0), Unb, doc)
}
/// A finite float in [0, 1].
const fn unit(id: &'static str, default: &'static str, doc: &'static str) -> Def {
    float(id, default, Inc(0.0), Inc(1.0), doc)
}

const SENSOR_TICK: Def = non_negative("sensor_tick", "0.0", "simulation seconds between captures (0 = every tick)");
const NOISE_SEED: Def = int("noise_seed", "0", 0, u32::MAX as i64, "seed of the noise generator");

// ---------------------------------------------------------------- cameras --

const IMAGE_SIZE_X: Def = int("image_size_x", "800", 1, 16384, "image width in pixels");
const IMAGE_SIZE_Y: Def = int("image_size_y", "600", 1, 16384, "image height in pixels");
const CAMERA_FOV: Def = float("fov", "90.0", Exc(0.0), Exc(180.0), "horizontal field of view, degrees");

/// Every camera: the basic attributes and the lens distortion ones, then
/// the given ones.
macro_rules! camera {
    ($($extra:expr,)*) => {[
        SENSOR_TICK, IMAGE_SIZE_X, IMAGE_SIZE_Y, CAMERA_FOV,
        float("lens_circle_falloff", "5.0", Inc(0.0), Inc(10.0), "lens distortion: circle falloff"),
        float("lens_circle_multiplier", "0.0", Inc(0.0), Inc(10.0), "lens distortion: circle multiplier"),
        any("lens_k", "-1.0", "lens distortion: quadratic coefficient"),
        any("lens_kcube", "0.0", "lens distortion: cubic coefficient"),
        unit("lens_x_size", "0.08", "lens distortion: x size"),
        unit("lens_y_size", "0.08", "lens distortion: y size"),
        $($extra,)*
    ]};
}

/// The depth and segmentation cameras (CARLA: no post-processing attributes).
static BASIC_CAMERA: [Def; 10] = camera!();

/// The RGB camera's post-processing attributes (CARLA's
/// `bEnableModifyingPostProcessEffects` cameras: rgb and dvs), then the
/// given ones.
macro_rules! post_processing_camera {
    ($($extra:expr,)*) => { camera!(
    string("exposure_mode", "histogram", &["histogram", "manual"], "auto-exposure mode"),
    any("exposure_compensation", "0.0", "exposure adjustment, log2 (-1: 2x darker, 1: 2x brighter)"),
    positive("shutter_speed", "200.0", "manual exposure: shutter speed, 1/s"),
    positive("iso", "100.0", "manual exposure: sensor sensitivity"),
    positive("fstop", "1.4", "lens opening (aperture is 1/fstop)"),
    boolean("enable_postprocess_effects", "true", "apply the post-processing effects"),
    float("gamma", "2.2", Exc(0.0), Inc(10.0), "target gamma of the camera"),
    unit("motion_blur_intensity", "0.45", "strength of the motion blur"),
    non_negative("motion_blur_max_distortion", "0.35", "largest motion blur distortion, % of the screen width"),
    non_negative("lens_flare_intensity", "0.1", "lens flare intensity (0 disables it)"),
    non_negative("bloom_intensity", "0.675", "bloom intensity (0 disables it)"),
    non_negative("motion_blur_min_object_screen_size", "0.1", "smallest object with motion blur, % of the screen width"),
    non_negative("exposure_min_bright", "10.0", "histogram exposure: lowest brightness adapted to"),
    non_negative("exposure_max_bright", "12.0", "histogram exposure: highest brightness adapted to"),
    non_negative("exposure_speed_up", "3.0", "histogram exposure: adaptation speed, dark to bright"),
    non_negative("exposure_speed_down", "1.0", "histogram exposure: adaptation speed, bright to dark"),
    positive("calibration_constant", "16.0", "calibration constant for 18% albedo"),
    non_negative("focal_distance", "1000.0", "distance of sharp depth of field, cm"),
    positive("min_fstop", "1.2", "largest aperture"),
    int("blade_count", "5", 0, 256, "blades of the diaphragm"),
    non_negative("blur_amount", "1.0", "depth blur amount"),
    non_negative("blur_radius", "0.0", "depth blur radius, pixels at 1080p"),
    unit("slope", "0.88", "tonemapper: steepness of the S-curve"),
    unit("toe", "0.55", "tonemapper: dark colours"),
    unit("shoulder", "0.26", "tonemapper: bright colours"),
    unit("black_clip", "0.0", "tonemapper: where black tones are cut"),
    unit("white_clip", "0.04", "tonemapper: where white tones are cut"),
    positive("temp", "6500.0", "white balance temperature, K"),
    any("tint", "0.0", "white balance tint"),
    non_negative("chromatic_aberration_intensity", "0.0", "chromatic aberration intensity"),
    unit("chromatic_aberration_offset", "0.0", "chromatic aberration start, from the centre"),
    $($extra,)*
    )};
}

static RGB_CAMERA: [Def; 41] = post_processing_camera!();

/// The event camera: the RGB camera's attributes and its own.
static DVS_CAMERA: [Def; 48] = post_processing_camera!(
    non_negative("positive_threshold", "0.3", "contrast threshold of a brightness increase"),
    non_negative("negative_threshold", "0.3", "contrast threshold of a brightness decrease"),
    non_negative("sigma_positive_threshold", "0.0", "noise of the positive threshold: standard deviation"),
    non_negative("sigma_negative_threshold", "0.0", "noise of the negative threshold: standard deviation"),
    int("refractory_period_ns", "0", 0, i32::MAX as i64, "time a pixel stays silent after an event, ns"),
    boolean("use_log", "true", "work on log intensity"),
    positive("log_eps", "0.001", "L = ln(log_eps + I/255)"),
);

// ----------------------------------------------------------------- lidars --

const CHANNELS: Def = int("channels", "32", 1, 256, "number of lasers");
const LIDAR_RANGE: Def = float("range", "10.0", Exc(0.0), Inc(1000.0), "maximum ray-cast distance, metres");
const POINTS_PER_SECOND: Def = int("points_per_second", "56000", 1, 10_000_000, "points per second, all lasers together");
const ROTATION_FREQUENCY: Def = float("rotation_frequency", "10.0", Exc(0.0), Inc(1000.0), "rotation frequency, Hz");
const UPPER_FOV: Def = float("upper_fov", "10.0", Inc(-90.0), Inc(90.0), "angle of the highest laser, degrees");
const LOWER_FOV: Def = float("lower_fov", "-30.0", Inc(-90.0), Inc(90.0), "angle of the lowest laser, degrees");
const LIDAR_HORIZONTAL_FOV: Def = float("horizontal_fov", "360.0", Exc(0.0), Inc(360.0), "horizontal field of view, degrees");

static RAY_CAST_LIDAR: [Def; 14] = [
    CHANNELS, LIDAR_RANGE, POINTS_PER_SECOND, ROTATION_FREQUENCY, UPPER_FOV, LOWER_FOV, LIDAR_HORIZONTAL_FOV,
    non_negative("atmosphere_attenuation_rate", "0.004", "intensity loss per metre, 1/m"),
    unit("dropoff_general_rate", "0.45", "proportion of points dropped at random"),
    unit("dropoff_intensity_limit", "0.8", "intensity above which no point is dropped"),
    unit("dropoff_zero_intensity", "0.4", "drop probability of a zero-intensity point"),
    non_negative("noise_stddev", "0.0", "std. deviation of the range noise, metres"),
    NOISE_SEED,
    SENSOR_TICK,
];

static SEMANTIC_LIDAR: [Def; 8] =
    [CHANNELS, LIDAR_RANGE, POINTS_PER_SECOND, ROTATION_FREQUENCY, UPPER_FOV, LOWER_FOV, LIDAR_HORIZONTAL_FOV, SENSOR_TICK];

// ------------------------------------------------------------------ other --

static SAFE_DISTANCE: [Def; 4] = [
    non_negative("safe_distance_front", "1.0", "extent of the box ahead of the vehicle, metres"),
    non_negative("safe_distance_back", "0.5", "extent of the box behind the vehicle, metres"),
    non_negative("safe_distance_lateral", "0.5", "extent of the box to each side, metres"),
    boolean("client_stream", "false", "give 0.9 clients the stream token (only clients built with this sensor can decode it; a stock client crashes on it, so it gets a plain actor)"),
];

/// GNSS position noise (the GNSS and the V2X sensor's CAMs).
const POSITION_NOISE: [Def; 6] = [
    non_negative("noise_lat_stddev", "0.0", "latitude noise: standard deviation, degrees"),
    any("noise_lat_bias", "0.0", "latitude noise: mean, degrees"),
    non_negative("noise_lon_stddev", "0.0", "longitude noise: standard deviation, degrees"),
    any("noise_lon_bias", "0.0", "longitude noise: mean, degrees"),
    non_negative("noise_alt_stddev", "0.0", "altitude noise: standard deviation, metres"),
    any("noise_alt_bias", "0.0", "altitude noise: mean, metres"),
];

static GNSS: [Def; 8] = [
    SENSOR_TICK, NOISE_SEED,
    POSITION_NOISE[0], POSITION_NOISE[1], POSITION_NOISE[2], POSITION_NOISE[3], POSITION_NOISE[4], POSITION_NOISE[5],
];

static IMU: [Def; 11] = [
    SENSOR_TICK, NOISE_SEED,
    non_negative("noise_accel_stddev_x", "0.0", "accelerometer noise, x: standard deviation, m/s²"),
    non_negative("noise_accel_stddev_y", "0.0", "accelerometer noise, y: standard deviation, m/s²"),
    non_negative("noise_accel_stddev_z", "0.0", "accelerometer noise, z: standard deviation, m/s²"),
    non_negative("noise_gyro_stddev_x", "0.0", "gyroscope noise, x: standard deviation, rad/s"),
    non_negative("noise_gyro_stddev_y", "0.0", "gyroscope noise, y: standard deviation, rad/s"),
    non_negative("noise_gyro_stddev_z", "0.0", "gyroscope noise, z: standard deviation, rad/s"),
    any("noise_gyro_bias_x", "0.0", "gyroscope noise, x: mean, rad/s"),
    any("noise_gyro_bias_y", "0.0", "gyroscope noise, y: mean, rad/s"),
    any("noise_gyro_bias_z", "0.0", "gyroscope noise, z: mean, rad/s"),
];

static OBSTACLE: [Def; 5] = [
    SENSOR_TICK,
    non_negative("distance", "5.0", "distance traced ahead, metres"),
    non_negative("hit_radius", "0.5", "radius of the trace, metres"),
    boolean("only_dynamics", "false", "only detect dynamic objects"),
    boolean("debug_linetrace", "false", "draw the trace"),
];

static RADAR: [Def; 6] = [
    SENSOR_TICK,
    float("horizontal_fov", "30", Exc(0.0), Exc(180.0), "horizontal field of view, degrees"),
    float("vertical_fov", "30", Exc(0.0), Exc(180.0), "vertical field of view, degrees"),
    positive("range", "100", "maximum detection distance, metres"),
    int("points_per_second", "1500", 0, 10_000_000, "rays traced per second"),
    NOISE_SEED,
];

// ------------------------------------------------------------------- V2X --

/// The radio attributes both V2X sensors have (CARLA's order).
macro_rules! v2x {
    ($($extra:expr,)*) => {[
        SENSOR_TICK, NOISE_SEED,
        any("transmit_power", "21.5", "transmit power, dBm"),
        any("receiver_sensitivity", "-99.0", "weakest power received, dBm"),
        float("frequency_ghz", "5.9", Exc(0.0), Inc(300.0), "carrier frequency, GHz"),
        any("combined_antenna_gain", "10.0", "transmit and receive antenna gains together, dBi"),
        string("scenario", "highway", &["highway", "rural", "urban"], "propagation scenario (fading, WINNER+ variant)"),
        string("path_loss_model", "winner", &["winner", "geometric"], "WINNER+ B1, or two-ray / log-distance"),
        non_negative("path_loss_exponent", "2.7", "log-distance exponent when buildings block the path"),
        positive("d_ref", "1.0", "reference distance of the log-distance model, metres"),
        non_negative("filter_distance", "500.0", "farthest station considered, metres"),
        boolean("use_etsi_fading", "true", "shadow fading with ETSI's standard deviations"),
        non_negative("custom_fading_stddev", "0.0", "shadow fading standard deviation otherwise, dB"),
        $($extra,)*
    ]};
}

static V2X: [Def; 30] = v2x!(
    positive("gen_cam_min", "0.1", "shortest interval between CAMs, seconds"),
    positive("gen_cam_max", "1.0", "longest interval between CAMs, seconds"),
    boolean("fixed_rate", "false", "send at gen_cam_min whatever the vehicle does"),
    POSITION_NOISE[0], POSITION_NOISE[1], POSITION_NOISE[2], POSITION_NOISE[3], POSITION_NOISE[4], POSITION_NOISE[5],
    non_negative("noise_head_stddev", "0.0", "heading noise: standard deviation, degrees"),
    any("noise_head_bias", "0.0", "heading noise: mean, degrees"),
    non_negative("noise_accel_stddev_x", "0.0", "acceleration noise, x: standard deviation, m/s²"),
    non_negative("noise_accel_stddev_y", "0.0", "acceleration noise, y: standard deviation, m/s²"),
    non_negative("noise_accel_stddev_z", "0.0", "acceleration noise, z: standard deviation, m/s²"),
    non_negative("noise_yawrate_stddev", "0.0", "yaw-rate noise: standard deviation, rad/s"),
    any("noise_yawrate_bias", "0.0", "yaw-rate noise: mean, rad/s"),
    non_negative("noise_vel_stddev_x", "0.0", "speed noise: standard deviation, m/s"),
);

static V2X_CUSTOM: [Def; 13] = v2x!();

/// Every sensor blueprint this server knows (new ones are appended: the
/// position is the blueprint's uid in the RPC blueprint library).
pub static DEFINITIONS: &[SensorDefinition] = &[
    SensorDefinition { id: "sensor.other.safe_distance", attributes: &SAFE_DISTANCE },
    SensorDefinition { id: "sensor.lidar.ray_cast", attributes: &RAY_CAST_LIDAR },
    SensorDefinition { id: "sensor.lidar.ray_cast_semantic", attributes: &SEMANTIC_LIDAR },
    SensorDefinition { id: "sensor.camera.rgb", attributes: &RGB_CAMERA },
    SensorDefinition { id: "sensor.camera.depth", attributes: &BASIC_CAMERA },
    SensorDefinition { id: "sensor.camera.semantic_segmentation", attributes: &BASIC_CAMERA },
    SensorDefinition { id: "sensor.camera.instance_segmentation", attributes: &BASIC_CAMERA },
    SensorDefinition { id: "sensor.other.gnss", attributes: &GNSS },
    SensorDefinition { id: "sensor.other.imu", attributes: &IMU },
    SensorDefinition { id: "sensor.other.collision", attributes: &[] },
    SensorDefinition { id: "sensor.other.obstacle", attributes: &OBSTACLE },
    SensorDefinition { id: "sensor.other.radar", attributes: &RADAR },
    SensorDefinition { id: "sensor.other.lane_invasion", attributes: &[] },
    SensorDefinition { id: "sensor.camera.dvs", attributes: &DVS_CAMERA },
    SensorDefinition { id: "sensor.camera.optical_flow", attributes: &BASIC_CAMERA },
    SensorDefinition { id: "sensor.camera.normals", attributes: &BASIC_CAMERA },
    SensorDefinition { id: "sensor.camera.cosmos_visualization", attributes: &BASIC_CAMERA },
    SensorDefinition { id: "sensor.other.v2x", attributes: &V2X },
    SensorDefinition { id: "sensor.other.v2x_custom", attributes: &V2X_CUSTOM },
];
