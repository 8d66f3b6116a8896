//! The settings parser's C API, called from Rust through the exported
//! `extern "C"` functions: NULL handling, a text that is not NUL-terminated,
//! error text, parsing over previous settings, and every getter.

use carla_server::ffi::*;
use carla_server::types::{CBool, CARLA_SERVER_CAMERA, CARLA_SERVER_LIDAR_RAY_CAST};
use std::ffi::{c_char, CStr};
use std::ptr::{null, null_mut};

const PYTHON_CLIENT_FILE: &str = "\
[CARLA/Server]
SynchronousMode=False
SendNonPlayerAgentsInfo=True

[CARLA/QualitySettings]
QualityLevel=Low

[CARLA/LevelSettings]
PlayerVehicle=/Game/Car
NumberOfVehicles=20
NumberOfPedestrians=40
WeatherId=7
SeedVehicles=41218
SeedPedestrians=-19376
DisableTwoWheeledVehicles=True

[CARLA/Sensor]
Sensors=CameraRGB,Lidar32

[CARLA/Sensor/CameraRGB]
SensorName=CameraRGB
SensorType=CAMERA
PositionX=0.3
PositionY=0
PositionZ=1.3
RotationPitch=-5
RotationRoll=0.0
RotationYaw=90
PostProcessing=SemanticSegmentation
ImageSizeX=800
ImageSizeY=600
FOV=100.0

[CARLA/Sensor/Lidar32]
SensorName=Lidar32
SensorType=LIDAR_RAY_CAST
PositionX=0
PositionY=0
PositionZ=2.5
Channels=64
Range=75
PointsPerSecond=100000
RotationFrequency=20
UpperFovLimit=15
LowerFovLimit=-25
ShowDebugPoints=True
";

/// Parses `text` (passed with its exact length, not NUL-terminated);
/// returns the code, the handle and the error text.
fn parse_bytes(text: &[u8]) -> (i32, CarlaSettingsPtr, String) {
    let mut out: CarlaSettingsPtr = 0x1 as CarlaSettingsPtr; // overwritten
    let mut error = [0x55 as c_char; 256];
    // SAFETY: valid pointers and sizes.
    let code = unsafe {
        carla_settings_parse(
            text.as_ptr() as *const c_char,
            text.len() as u32,
            &mut out,
            error.as_mut_ptr(),
            error.len() as u32,
        )
    };
    (code, out, text_of(&error))
}

fn text_of(buffer: &[c_char]) -> String {
    // SAFETY: the library NUL-terminates within the buffer (checked by
    // callers that expect text; a fresh buffer is never read unterminated).
    unsafe { CStr::from_ptr(buffer.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn c_str(p: *const c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: the library hands out NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned()
}

fn zeroed_sensor() -> carla_sensor_settings {
    // SAFETY: all-zero is a valid carla_sensor_settings (NULL name).
    unsafe { std::mem::zeroed() }
}

fn zeroed_level() -> carla_level_settings {
    // SAFETY: all-zero is a valid carla_level_settings (NULL string).
    unsafe { std::mem::zeroed() }
}

#[test]
fn parses_the_python_clients_file_and_every_getter_reports_it() {
    // A buffer with garbage right after the text: `length` must be honoured.
    let mut bytes = PYTHON_CLIENT_FILE.as_bytes().to_vec();
    bytes.extend_from_slice(b"garbage line\n[");
    let (code, s, error) = parse_bytes(&bytes[..PYTHON_CLIENT_FILE.len()]);
    assert_eq!(code, 0, "{error}");
    assert!(!s.is_null());

    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    unsafe {
        let mut b = CBool::TRUE;
        assert_eq!(carla_settings_synchronous_mode(s, &mut b), 0);
        assert!(!b.get());
        let mut b = CBool::FALSE;
        assert_eq!(carla_settings_send_non_player_agents(s, &mut b), 0);
        assert!(b.get());

        let mut level = zeroed_level();
        assert_eq!(carla_settings_level(s, &mut level), 0);
        assert_eq!(level.number_of_vehicles, 20);
        assert_eq!(level.number_of_pedestrians, 40);
        assert_eq!(level.weather_id, 7);
        assert_eq!(level.seed_vehicles, 41218);
        assert_eq!(level.seed_pedestrians, -19376);
        assert!(level.disable_two_wheeled_vehicles.get());
        assert_eq!(level.quality_level, CARLA_SETTINGS_QUALITY_LOW);
        assert_eq!(c_str(level.player_vehicle), "/Game/Car");

        let mut count = 0;
        assert_eq!(carla_settings_sensor_count(s, &mut count), 0);
        assert_eq!(count, 2);

        let mut cam = zeroed_sensor();
        assert_eq!(carla_settings_sensor(s, 0, &mut cam), 0);
        assert_eq!(cam.r#type, CARLA_SERVER_CAMERA);
        assert_eq!(c_str(cam.name), "CameraRGB");
        assert_eq!(
            (cam.position.x, cam.position.y, cam.position.z),
            (0.3, 0.0, 1.3)
        );
        assert_eq!(
            (cam.rotation.pitch, cam.rotation.yaw, cam.rotation.roll),
            (-5.0, 90.0, 0.0)
        );
        assert_eq!(
            cam.post_processing,
            CARLA_SETTINGS_POST_PROCESSING_SEMANTIC_SEGMENTATION
        );
        assert_eq!((cam.image_size_x, cam.image_size_y), (800, 600));
        assert_eq!(cam.fov, 100.0);
        assert_eq!((cam.channels, cam.points_per_second), (0, 0));
        assert!(!cam.show_debug_points.get());

        let mut lidar = zeroed_sensor();
        assert_eq!(carla_settings_sensor(s, 1, &mut lidar), 0);
        assert_eq!(lidar.r#type, CARLA_SERVER_LIDAR_RAY_CAST);
        assert_eq!(c_str(lidar.name), "Lidar32");
        assert_eq!(lidar.position.z, 2.5);
        assert_eq!((lidar.rotation.pitch, lidar.rotation.yaw), (0.0, 0.0));
        assert_eq!(lidar.channels, 64);
        assert_eq!(lidar.range, 75.0);
        assert_eq!(lidar.points_per_second, 100_000);
        assert_eq!(lidar.rotation_frequency, 20.0);
        assert_eq!(
            (lidar.upper_fov_limit, lidar.lower_fov_limit),
            (15.0, -25.0)
        );
        assert!(lidar.show_debug_points.get());
        assert_eq!((lidar.image_size_x, lidar.fov), (0, 0.0));
        assert_eq!(lidar.post_processing, 0);

        // The name pointers stay valid across further calls.
        let mut again = zeroed_sensor();
        assert_eq!(carla_settings_sensor(s, 0, &mut again), 0);
        assert_eq!(again.name, cam.name);

        // Past the end: invalid argument, `out` untouched.
        let mut past = zeroed_sensor();
        past.channels = 77;
        assert_eq!(
            carla_settings_sensor(s, 2, &mut past),
            CARLA_SERVER_INVALID_ARGUMENT
        );
        assert_eq!(past.channels, 77);
        assert_eq!(
            carla_settings_sensor(s, u32::MAX, &mut past),
            CARLA_SERVER_INVALID_ARGUMENT
        );

        carla_settings_free(s);
    }
}

#[test]
fn an_empty_text_gives_ue4s_defaults() {
    for text in [&b""[..], b"\n; only a comment\n"] {
        let (code, s, error) = parse_bytes(text);
        assert_eq!(code, 0, "{error}");
        // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
        unsafe {
            let mut b = CBool::FALSE;
            assert_eq!(carla_settings_synchronous_mode(s, &mut b), 0);
            assert!(b.get());
            assert_eq!(carla_settings_send_non_player_agents(s, &mut b), 0);
            assert!(!b.get());
            let mut level = zeroed_level();
            assert_eq!(carla_settings_level(s, &mut level), 0);
            assert_eq!(
                (level.number_of_vehicles, level.number_of_pedestrians),
                (5, 15)
            );
            assert_eq!(level.weather_id, -1);
            assert_eq!(
                (level.seed_vehicles, level.seed_pedestrians),
                (123456789, 123456789)
            );
            assert!(!level.disable_two_wheeled_vehicles.get());
            assert_eq!(level.quality_level, CARLA_SETTINGS_QUALITY_NONE);
            assert_eq!(c_str(level.player_vehicle), "");
            let mut count = 9;
            assert_eq!(carla_settings_sensor_count(s, &mut count), 0);
            assert_eq!(count, 0);
            carla_settings_free(s);
        }
    }
    // NULL text with length 0 is an empty text.
    let mut out = null_mut();
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    let code = unsafe { carla_settings_parse(null(), 0, &mut out, null_mut(), 0) };
    assert_eq!(code, 0);
    assert!(!out.is_null());
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    unsafe { carla_settings_free(out) };
}

#[test]
fn a_nul_inside_the_length_ends_the_text() {
    let text = b"[CARLA/Server]\nSynchronousMode=False\n\0this is not ini\n";
    let (code, s, error) = parse_bytes(text);
    assert_eq!(code, 0, "{error}");
    let mut b = CBool::TRUE;
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    unsafe {
        assert_eq!(carla_settings_synchronous_mode(s, &mut b), 0);
        carla_settings_free(s);
    }
    assert!(!b.get());
}

#[test]
fn bad_values_return_invalid_argument_and_the_reason() {
    let text = "[CARLA/Sensor]\nSensors=CameraRGB\n[CARLA/Sensor/CameraRGB]\n\
                SensorType=CAMERA\nImageSizeX=abc\n";
    let (code, s, error) = parse_bytes(text.as_bytes());
    assert_eq!(code, CARLA_SERVER_INVALID_ARGUMENT);
    assert!(s.is_null(), "out is set to NULL on failure");
    assert_eq!(
        error,
        "[CARLA/Sensor/CameraRGB] ImageSizeX=\"abc\": expected an unsigned integer (line 5)"
    );

    for (text, part) in [
        ("garbage\n", "line 1: \"garbage\" is not"),
        (
            "[CARLA/Sensor]\nSensors=X\n",
            "sensor \"X\" listed in Sensors has no SensorType",
        ),
        (
            "[CARLA/Sensor]\nSensors=X\nSensorType=RADAR\n",
            "unknown sensor type for sensor \"X\"",
        ),
        (
            "[CARLA/Sensor]\nSensors=X\n[CARLA/Sensor/X]\nSensorType=CAMERA\nPostProcessing=Blur\n",
            "invalid post-processing for camera \"X\"",
        ),
        (
            "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nChannels=257\n",
            "out of range, allowed 0 to 256",
        ),
        (
            "[CARLA/LevelSettings]\nNumberOfVehicles=-1\n",
            "must not be negative",
        ),
    ] {
        let (code, s, error) = parse_bytes(text.as_bytes());
        assert_eq!(code, CARLA_SERVER_INVALID_ARGUMENT, "{text:?}");
        assert!(s.is_null());
        assert!(error.contains(part), "{text:?}: {error}");
    }

    // Invalid UTF-8 is rejected with a reason.
    let (code, s, error) = parse_bytes(b"[CARLA/Server]\nSynchronousMode=\xff\n");
    assert_eq!(code, CARLA_SERVER_INVALID_ARGUMENT);
    assert!(s.is_null());
    assert!(error.contains("not valid UTF-8"), "{error}");
}

#[test]
fn the_error_text_is_truncated_to_the_buffer_and_may_be_null() {
    let text = b"[CARLA/Server]\nSynchronousMode=maybe\n";
    let mut out = null_mut();
    let mut small = [0x55 as c_char; 12];
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    let code = unsafe {
        carla_settings_parse(
            text.as_ptr() as *const c_char,
            text.len() as u32,
            &mut out,
            small.as_mut_ptr(),
            small.len() as u32,
        )
    };
    assert_eq!(code, CARLA_SERVER_INVALID_ARGUMENT);
    assert_eq!(small[11], 0, "NUL-terminated within error_size");
    assert_eq!(text_of(&small), "[CARLA/Serv");

    // error_size 0: nothing is written.
    let mut untouched = [0x55 as c_char; 4];
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    let code = unsafe {
        carla_settings_parse(
            text.as_ptr() as *const c_char,
            text.len() as u32,
            &mut out,
            untouched.as_mut_ptr(),
            0,
        )
    };
    assert_eq!(code, CARLA_SERVER_INVALID_ARGUMENT);
    assert_eq!(untouched, [0x55 as c_char; 4]);

    // NULL error buffer.
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    let code = unsafe {
        carla_settings_parse(
            text.as_ptr() as *const c_char,
            text.len() as u32,
            &mut out,
            null_mut(),
            64,
        )
    };
    assert_eq!(code, CARLA_SERVER_INVALID_ARGUMENT);
    assert!(out.is_null());
}

#[test]
fn null_arguments() {
    let text = b"[CARLA/Server]\nSynchronousMode=True\n";
    let mut error = [0 as c_char; 64];
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    unsafe {
        // NULL out.
        let code = carla_settings_parse(
            text.as_ptr() as *const c_char,
            text.len() as u32,
            null_mut(),
            error.as_mut_ptr(),
            64,
        );
        assert_eq!(code, CARLA_SERVER_NULL_ARGUMENT);
        assert_eq!(text_of(&error), "out is NULL");
        // NULL text with a length.
        let mut out = 0x1 as CarlaSettingsPtr;
        let code = carla_settings_parse(null(), 5, &mut out, error.as_mut_ptr(), 64);
        assert_eq!(code, CARLA_SERVER_NULL_ARGUMENT);
        assert!(out.is_null());
        assert_eq!(text_of(&error), "ini is NULL");

        // Getters: NULL settings, NULL out.
        let (_, s, _) = parse_bytes(text);
        let mut b = CBool::FALSE;
        let mut n = 0u32;
        let mut level = zeroed_level();
        let mut sensor = zeroed_sensor();
        let null_settings = null_mut();
        assert_eq!(
            carla_settings_synchronous_mode(null_settings, &mut b),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_synchronous_mode(s, null_mut()),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_send_non_player_agents(null_settings, &mut b),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_send_non_player_agents(s, null_mut()),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_level(null_settings, &mut level),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_level(s, null_mut()),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_sensor_count(null_settings, &mut n),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_sensor_count(s, null_mut()),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_sensor(null_settings, 0, &mut sensor),
            CARLA_SERVER_NULL_ARGUMENT
        );
        assert_eq!(
            carla_settings_sensor(s, 0, null_mut()),
            CARLA_SERVER_NULL_ARGUMENT
        );
        carla_settings_free(s);
        carla_settings_free(null_mut()); // accepted
    }
}

#[test]
fn parse_over_keeps_absent_keys_from_the_previous_settings() {
    let first_text = b"[CARLA/Server]\nSynchronousMode=False\n[CARLA/QualitySettings]\n\
                       QualityLevel=Epic\n[CARLA/LevelSettings]\nNumberOfVehicles=42\n\
                       [CARLA/Sensor]\nSensors=C\nSensorType=CAMERA\n";
    let (code, first, error) = parse_bytes(first_text);
    assert_eq!(code, 0, "{error}");
    let second_text = b"[CARLA/LevelSettings]\nNumberOfPedestrians=3\n";
    let mut second = null_mut();
    let mut error = [0 as c_char; 128];
    // SAFETY: the settings handles are live until freed below; every pointer points to a local that outlives the call.
    unsafe {
        let code = carla_settings_parse_over(
            first,
            second_text.as_ptr() as *const c_char,
            second_text.len() as u32,
            &mut second,
            error.as_mut_ptr(),
            128,
        );
        assert_eq!(code, 0, "{}", text_of(&error));
        // `first` is still valid and unchanged.
        let mut n = 0;
        assert_eq!(carla_settings_sensor_count(first, &mut n), 0);
        assert_eq!(n, 1);
        carla_settings_free(first);

        let mut b = CBool::TRUE;
        assert_eq!(carla_settings_synchronous_mode(second, &mut b), 0);
        assert!(!b.get(), "kept from the previous settings");
        let mut level = zeroed_level();
        assert_eq!(carla_settings_level(second, &mut level), 0);
        assert_eq!(level.number_of_vehicles, 42);
        assert_eq!(level.number_of_pedestrians, 3);
        assert_eq!(level.quality_level, CARLA_SETTINGS_QUALITY_NONE);
        assert_eq!(carla_settings_sensor_count(second, &mut n), 0);
        assert_eq!(n, 0, "the sensor list is the text's own");
        carla_settings_free(second);

        // NULL previous: the defaults.
        let mut third = null_mut();
        let code = carla_settings_parse_over(
            null_mut(),
            second_text.as_ptr() as *const c_char,
            second_text.len() as u32,
            &mut third,
            null_mut(),
            0,
        );
        assert_eq!(code, 0);
        assert_eq!(carla_settings_synchronous_mode(third, &mut b), 0);
        assert!(b.get());
        carla_settings_free(third);
    }
}
