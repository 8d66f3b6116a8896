//! Unit tests of the settings parser.

use super::*;

fn ok(text: &str) -> Settings {
    text.parse()
        .unwrap_or_else(|e| panic!("{e}\n--- text ---\n{text}"))
}

fn err(text: &str) -> SettingsError {
    match text.parse::<Settings>() {
        Ok(s) => panic!("parsed, expected an error: {s:?}\n--- text ---\n{text}"),
        Err(e) => e,
    }
}

fn camera(s: &Settings, i: usize) -> &CameraSettings {
    match &s.sensors[i] {
        SensorSettings::Camera(c) => c,
        other => panic!("sensor {i} is not a camera: {other:?}"),
    }
}

fn lidar(s: &Settings, i: usize) -> &LidarSettings {
    match &s.sensors[i] {
        SensorSettings::Lidar(l) => l,
        other => panic!("sensor {i} is not a lidar: {other:?}"),
    }
}

fn v(x: f32, y: f32, z: f32) -> Vector3D {
    Vector3D { x, y, z }
}

fn r(pitch: f32, yaw: f32, roll: f32) -> Rotation3D {
    Rotation3D { pitch, yaw, roll }
}

/// What the 0.8.4 Python client's `str(CarlaSettings)` gives for its
/// example (`client_example.py`): ConfigParser output with " = " -> "=".
const PYTHON_CLIENT_FILE: &str = "\
[CARLA/Server]
SynchronousMode=True
SendNonPlayerAgentsInfo=True

[CARLA/QualitySettings]
QualityLevel=Epic

[CARLA/LevelSettings]
NumberOfVehicles=20
NumberOfPedestrians=40
WeatherId=7
SeedVehicles=41218
SeedPedestrians=19376
DisableTwoWheeledVehicles=False

[CARLA/Sensor]
Sensors=CameraRGB,CameraDepth,Lidar32

[CARLA/Sensor/CameraRGB]
SensorName=CameraRGB
SensorType=CAMERA
PositionX=0.3
PositionY=0
PositionZ=1.3
RotationPitch=0.0
RotationRoll=0.0
RotationYaw=0.0
PostProcessing=SceneFinal
ImageSizeX=800
ImageSizeY=600
FOV=90.0

[CARLA/Sensor/CameraDepth]
SensorName=CameraDepth
SensorType=CAMERA
PositionX=0.3
PositionY=0
PositionZ=1.3
RotationPitch=0.0
RotationRoll=0.0
RotationYaw=0.0
PostProcessing=Depth
ImageSizeX=800
ImageSizeY=600
FOV=90.0

[CARLA/Sensor/Lidar32]
SensorName=Lidar32
SensorType=LIDAR_RAY_CAST
PositionX=0
PositionY=0
PositionZ=2.5
RotationPitch=0
RotationRoll=0
RotationYaw=0
Channels=32
Range=50
PointsPerSecond=100000
RotationFrequency=10
UpperFovLimit=10
LowerFovLimit=-30
ShowDebugPoints=False

";

#[test]
fn the_python_clients_example_file() {
    let s = ok(PYTHON_CLIENT_FILE);
    assert!(s.synchronous_mode);
    assert!(s.send_non_player_agents_info);
    assert_eq!(s.quality_level, QualityLevel::Epic);
    assert_eq!(
        s.level,
        LevelSettings {
            player_vehicle: String::new(),
            number_of_vehicles: 20,
            number_of_pedestrians: 40,
            weather_id: 7,
            seed_vehicles: 41218,
            seed_pedestrians: 19376,
            disable_two_wheeled_vehicles: false,
        }
    );
    assert_eq!(s.sensors.len(), 3);
    let rgb = CameraSettings {
        name: "CameraRGB".into(),
        post_processing: PostProcessing::SceneFinal,
        image_size_x: 800,
        image_size_y: 600,
        fov: 90.0,
        position: v(0.3, 0.0, 1.3),
        rotation: r(0.0, 0.0, 0.0),
    };
    assert_eq!(*camera(&s, 0), rgb);
    let depth = CameraSettings {
        name: "CameraDepth".into(),
        post_processing: PostProcessing::Depth,
        ..rgb
    };
    assert_eq!(*camera(&s, 1), depth);
    assert_eq!(
        *lidar(&s, 2),
        LidarSettings {
            name: "Lidar32".into(),
            channels: 32,
            range_m: 50.0,
            points_per_second: 100_000,
            rotation_frequency: 10.0,
            upper_fov: 10.0,
            lower_fov: -30.0,
            show_debug_points: false,
            position: v(0.0, 0.0, 2.5),
            rotation: r(0.0, 0.0, 0.0),
        }
    );
    assert_eq!(
        s.sensors.iter().map(|s| s.type_id()).collect::<Vec<_>>(),
        [101, 101, 102]
    );
    assert_eq!(s.sensors[1].name(), "CameraDepth");
    assert_eq!(s.sensors[2].position(), v(0.0, 0.0, 2.5));
    assert_eq!(s.sensors[0].rotation(), r(0.0, 0.0, 0.0));
    assert!(s.unknown_keys.is_empty(), "{:?}", s.unknown_keys);
    assert!(!s.semantic_segmentation_enabled());
}

#[test]
fn defaults_are_ue4s() {
    let d = Settings::default();
    assert!(!d.use_networking);
    assert_eq!(d.world_port, 2000);
    assert_eq!(d.server_timeout_ms, 10_000);
    assert!(d.synchronous_mode);
    assert!(!d.send_non_player_agents_info);
    assert_eq!(d.quality_level, QualityLevel::Epic);
    assert_eq!(d.level.player_vehicle, "");
    assert_eq!(d.level.number_of_vehicles, 5);
    assert_eq!(d.level.number_of_pedestrians, 15);
    assert_eq!(d.level.weather_id, -1);
    assert_eq!(d.level.seed_vehicles, 123_456_789);
    assert_eq!(d.level.seed_pedestrians, 123_456_789);
    assert!(!d.level.disable_two_wheeled_vehicles);
    assert!(d.sensors.is_empty() && d.unknown_keys.is_empty());

    let c = CameraSettings::default();
    assert_eq!(c.post_processing, PostProcessing::SceneFinal);
    assert_eq!((c.image_size_x, c.image_size_y, c.fov), (720, 512, 90.0));
    assert_eq!(c.position, v(1.7, 0.0, 1.5));
    assert_eq!(c.rotation, r(0.0, 0.0, 0.0));
    let l = LidarSettings::default();
    assert_eq!((l.channels, l.points_per_second), (32, 56_000));
    assert_eq!((l.range_m, l.rotation_frequency), (50.0, 10.0));
    assert_eq!((l.upper_fov, l.lower_fov), (10.0, -30.0));
    assert!(!l.show_debug_points);
    assert_eq!(l.position, v(1.7, 0.0, 1.5));

    // An empty text keeps everything but QualityLevel (reset to None).
    let empty = ok("");
    assert_eq!(
        empty,
        Settings {
            quality_level: QualityLevel::None,
            ..Settings::default()
        }
    );
    // Sensors with nothing but a type get the defaults.
    let s = ok(
        "[CARLA/Sensor]\nSensors=C,L\n[CARLA/Sensor/C]\nSensorType=CAMERA\n\
                [CARLA/Sensor/L]\nSensorType=LIDAR_RAY_CAST\n",
    );
    assert_eq!(
        *camera(&s, 0),
        CameraSettings {
            name: "C".into(),
            ..CameraSettings::default()
        }
    );
    assert_eq!(
        *lidar(&s, 1),
        LidarSettings {
            name: "L".into(),
            ..LidarSettings::default()
        }
    );
}

#[test]
fn every_server_quality_and_level_key() {
    let s = ok(
        "[CARLA/Server]\nUseNetworking=True\nWorldPort=3000\nServerTimeOut=2500\n\
                SynchronousMode=False\nSendNonPlayerAgentsInfo=Yes\n\
                [CARLA/QualitySettings]\nQualityLevel=Low\n\
                [CARLA/LevelSettings]\nPlayerVehicle=/Game/Blueprints/Car.Car_C\n\
                NumberOfVehicles=0\nNumberOfPedestrians=4294967295\nWeatherId=-7\n\
                SeedVehicles=-2147483648\nSeedPedestrians=2147483647\n\
                DisableTwoWheeledVehicles=On\n",
    );
    assert!(s.use_networking);
    assert_eq!(s.world_port, 3000);
    assert_eq!(s.server_timeout_ms, 2500);
    assert!(!s.synchronous_mode);
    assert!(s.send_non_player_agents_info);
    assert_eq!(s.quality_level, QualityLevel::Low);
    assert_eq!(
        s.level,
        LevelSettings {
            player_vehicle: "/Game/Blueprints/Car.Car_C".into(),
            number_of_vehicles: 0,
            number_of_pedestrians: u32::MAX,
            weather_id: -7,
            seed_vehicles: i32::MIN,
            seed_pedestrians: i32::MAX,
            disable_two_wheeled_vehicles: true,
        }
    );
    for (text, level) in [
        ("none", QualityLevel::None),
        ("LOW", QualityLevel::Low),
        ("Medium", QualityLevel::Medium),
        ("high", QualityLevel::High),
        ("Epic", QualityLevel::Epic),
    ] {
        let s = ok(&format!("[CARLA/QualitySettings]\nQualityLevel={text}\n"));
        assert_eq!(s.quality_level, level, "{text}");
    }
    assert_eq!(QualityLevel::Epic as u32, 4);
    assert_eq!(PostProcessing::SemanticSegmentation as u32, 3);
}

#[test]
fn booleans_take_words_and_numbers() {
    for (text, want) in [
        ("True", true),
        ("TRUE", true),
        ("yes", true),
        ("On", true),
        ("1", true),
        ("-3", true),
        ("99999999999999999999", true),
        ("False", false),
        ("no", false),
        ("OFF", false),
        ("0", false),
        ("+0", false),
    ] {
        let s = parse(
            &format!("[CARLA/Server]\nSynchronousMode={text}\n"),
            &Settings {
                synchronous_mode: !want,
                ..Settings::default()
            },
        )
        .unwrap();
        assert_eq!(s.synchronous_mode, want, "{text}");
    }
}

#[test]
fn absent_keys_keep_the_previous_values_but_sensors_are_rebuilt() {
    let first = ok(
        "[CARLA/Server]\nSynchronousMode=False\nSendNonPlayerAgentsInfo=True\n\
                    [CARLA/QualitySettings]\nQualityLevel=Low\n\
                    [CARLA/LevelSettings]\nNumberOfVehicles=9\nWeatherId=3\nPlayerVehicle=P\n\
                    [CARLA/Sensor]\nSensors=Cam\nFoo=1\n[CARLA/Sensor/Cam]\nSensorType=CAMERA\n",
    );
    assert_eq!(first.sensors.len(), 1);
    assert_eq!(first.unknown_keys, ["[CARLA/Sensor] Foo"]);
    let second = parse("[CARLA/LevelSettings]\nNumberOfPedestrians=1\n", &first).unwrap();
    assert!(!second.synchronous_mode);
    assert!(second.send_non_player_agents_info);
    assert_eq!(second.level.number_of_vehicles, 9);
    assert_eq!(second.level.number_of_pedestrians, 1);
    assert_eq!(second.level.weather_id, 3);
    assert_eq!(second.level.player_vehicle, "P");
    assert_eq!(
        second.quality_level,
        QualityLevel::None,
        "reset when missing"
    );
    assert!(second.sensors.is_empty(), "the sensor list is cleared");
    assert!(second.unknown_keys.is_empty(), "unknown keys are per parse");
    let third = parse("[CARLA/Server]\nSynchronousMode=True\n", &second).unwrap();
    assert!(third.synchronous_mode);
}

#[test]
fn section_and_key_names_and_value_words_are_case_insensitive() {
    let s = ok("[carla/server]\nsynchronousmode=false\n[CARLA/LEVELSETTINGS]\nNUMBEROFVEHICLES=3\n\
                [carla/sensor]\nsensors=Cam,Lid\n[Carla/Sensor/cam]\nsensortype=camera\n\
                postprocessing=semanticsegmentation\nimagesizex=64\nfov=45\n\
                [CARLA/SENSOR/LID]\nSensorType=lidar_ray_cast\nUpperFOVLimit=15\nlowerfovlimit=-15\n\
                CHANNELS=16\n");
    assert!(!s.synchronous_mode);
    assert_eq!(s.level.number_of_vehicles, 3);
    let c = camera(&s, 0);
    assert_eq!(c.name, "Cam", "the name is kept as listed in Sensors");
    assert_eq!(c.post_processing, PostProcessing::SemanticSegmentation);
    assert_eq!((c.image_size_x, c.fov), (64, 45.0));
    let l = lidar(&s, 1);
    assert_eq!((l.upper_fov, l.lower_fov, l.channels), (15.0, -15.0, 16));
    assert!(s.unknown_keys.is_empty(), "{:?}", s.unknown_keys);
    assert!(s.semantic_segmentation_enabled());
}

#[test]
fn every_camera_key() {
    for (word, post) in [
        ("None", PostProcessing::None),
        ("SceneFinal", PostProcessing::SceneFinal),
        ("Depth", PostProcessing::Depth),
        ("SemanticSegmentation", PostProcessing::SemanticSegmentation),
    ] {
        let s = ok(&format!(
            "[CARLA/Sensor]\nSensors=C\n[CARLA/Sensor/C]\nSensorType=CAMERA\n\
             PostProcessing={word}\nImageSizeX=16384\nImageSizeY=1\nFOV=179.5\n\
             PositionX=-1.25\nPositionY=2\nPositionZ=10000\n\
             RotationPitch=-15\nRotationYaw=360\nRotationRoll=0.5\n"
        ));
        assert_eq!(
            *camera(&s, 0),
            CameraSettings {
                name: "C".into(),
                post_processing: post,
                image_size_x: 16384,
                image_size_y: 1,
                fov: 179.5,
                position: v(-1.25, 2.0, 10_000.0),
                rotation: r(-15.0, 360.0, 0.5),
            }
        );
    }
}

#[test]
fn every_lidar_key() {
    let s = ok(
        "[CARLA/Sensor]\nSensors=L\n[CARLA/Sensor/L]\nSensorType=LIDAR_RAY_CAST\n\
                Channels=256\nRange=1000\nPointsPerSecond=10000000\nRotationFrequency=0.5\n\
                UpperFovLimit=90\nLowerFovLimit=-90\nShowDebugPoints=True\n\
                PositionX=0\nPositionY=-0.5\nPositionZ=2.4\n\
                RotationPitch=1\nRotationYaw=-360\nRotationRoll=2\n",
    );
    assert_eq!(
        *lidar(&s, 0),
        LidarSettings {
            name: "L".into(),
            channels: 256,
            range_m: 1000.0,
            points_per_second: 10_000_000,
            rotation_frequency: 0.5,
            upper_fov: 90.0,
            lower_fov: -90.0,
            show_debug_points: true,
            position: v(0.0, -0.5, 2.4),
            rotation: r(1.0, -360.0, 2.0),
        }
    );
    // A single laser (UE4 divides by zero there) and equal limits are fine.
    let s = ok(
        "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nChannels=1\n\
                UpperFovLimit=0\nLowerFovLimit=0\n",
    );
    assert_eq!(lidar(&s, 0).channels, 1);
}

#[test]
fn zero_sizes_channels_and_points_mean_the_default() {
    let s = ok(
        "[CARLA/Sensor]\nSensors=C,L\n[CARLA/Sensor/C]\nSensorType=CAMERA\n\
                ImageSizeX=0\nImageSizeY=0\n\
                [CARLA/Sensor/L]\nSensorType=LIDAR_RAY_CAST\nChannels=0\nPointsPerSecond=0\n",
    );
    let c = camera(&s, 0);
    assert_eq!((c.image_size_x, c.image_size_y), (720, 512));
    let l = lidar(&s, 1);
    assert_eq!((l.channels, l.points_per_second), (32, 56_000));
}

#[test]
fn sensors_inherit_from_parent_sections_deepest_wins() {
    let s = ok(
        "[CARLA/Sensor]\nSensors= Cams/Wide , Cams/Narrow,, Cams ,Lidars/Top\n\
                PositionZ=3\nImageSizeX=100\nSensorType=CAMERA\n\
                [CARLA/Sensor/Cams]\nImageSizeY=50\nFOV=60\nPostProcessing=Depth\n\
                [CARLA/Sensor/Cams/Wide]\nFOV=120\n\
                [CARLA/Sensor/Cams/Narrow]\nFOV=20\nPostProcessing=None\nImageSizeX=10\n\
                [CARLA/Sensor/Lidars]\nSensorType=LIDAR_RAY_CAST\nChannels=64\n\
                [CARLA/Sensor/Lidars/Top]\nRange=80\nPositionZ=2\n",
    );
    let names: Vec<_> = s.sensors.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["Cams/Wide", "Cams/Narrow", "Cams", "Lidars/Top"]);
    let wide = camera(&s, 0);
    assert_eq!((wide.image_size_x, wide.image_size_y), (100, 50));
    assert_eq!(wide.fov, 120.0);
    assert_eq!(
        wide.position,
        v(1.7, 0.0, 3.0),
        "PositionZ from [CARLA/Sensor]"
    );
    // PostProcessing is not inherited: [CARLA/Sensor/Cams] says Depth, but
    // only the sensor's own section counts.
    assert_eq!(wide.post_processing, PostProcessing::SceneFinal);
    let narrow = camera(&s, 1);
    assert_eq!((narrow.image_size_x, narrow.fov), (10, 20.0));
    assert_eq!(narrow.post_processing, PostProcessing::None);
    let cams = camera(&s, 2);
    assert_eq!(
        cams.post_processing,
        PostProcessing::Depth,
        "its own section"
    );
    assert_eq!(cams.fov, 60.0);
    let top = lidar(&s, 3);
    assert_eq!((top.channels, top.range_m), (64, 80.0));
    assert_eq!(top.position.z, 2.0);
    assert!(s.unknown_keys.is_empty(), "{:?}", s.unknown_keys);
}

#[test]
fn unknown_keys_are_collected_once_each() {
    let s = ok("Orphan=1\n\
                [CARLA/Server]\nSynchronousMode=True\nFrobnicate=1\nfrobnicate=2\n\
                [CARLA/LevelSettings]\nNumberOfCars=3\n\
                [CARLA/Weather]\nRain=1\n\
                [CARLA/Sensor]\nSensors=C\n\
                [CARLA/Sensor/C]\nSensorType=CAMERA\nSensorName=C\nSensors=X\nColour=red\n\
                [CARLA/Server]\nFROBNICATE=3\nAnother=1\n\
                [CARLA/Sensor/Unused]\nFOV=10\nBogus=1\n");
    assert_eq!(
        s.unknown_keys,
        [
            "[] Orphan",
            "[CARLA/Server] Frobnicate",
            "[CARLA/Server] Another",
            "[CARLA/LevelSettings] NumberOfCars",
            "[CARLA/Weather] Rain",
            "[CARLA/Sensor/C] Sensors",
            "[CARLA/Sensor/C] Colour",
            "[CARLA/Sensor/Unused] Bogus",
        ]
    );
    assert_eq!(s.sensors.len(), 1);
}

#[test]
fn unknown_keys_are_logged_as_warnings() {
    use crate::log::Level;
    // Other tests' lines may arrive too, so only the lines naming this
    // test's unique key and section are counted.
    let (s, lines) = crate::log::capture(|| {
        ok("[CARLA/Server]\nMysteryKey=1\nmysterykey=2\n[CARLA/Sensor/Nobody]\nFOV=1\n")
    });
    assert_eq!(s.unknown_keys, ["[CARLA/Server] MysteryKey"]);
    let mine: Vec<_> = lines
        .iter()
        .filter(|(_, l)| l.contains("MysteryKey") || l.contains("Nobody"))
        .collect();
    assert_eq!(mine.len(), 2, "{mine:?}");
    assert!(mine.iter().all(|(level, _)| *level == Level::Warning));
}

#[test]
fn ini_syntax_comments_quotes_whitespace_duplicates() {
    let s = ok(
        "\u{feff}; a comment\r\n  # another\r\n\r\n  [ CARLA/Server ]  \r\n\
                \t SynchronousMode =  \"False\" \r\n\
                [CARLA/LevelSettings]\nNumberOfVehicles=1\nNumberOfVehicles=2\n\
                PlayerVehicle=\"/Game/A B\"\n\
                [CARLA/Server]\nSendNonPlayerAgentsInfo=True\n\
                [CARLA/Sensor]\nSensors=\n",
    );
    assert!(!s.synchronous_mode);
    assert!(s.send_non_player_agents_info, "a repeated header continues");
    assert_eq!(s.level.number_of_vehicles, 2, "the last value wins");
    assert_eq!(s.level.player_vehicle, "/Game/A B");
    assert!(s.sensors.is_empty());
}

// ------------------------------------------------------------------ errors

#[test]
fn malformed_lines_name_the_line() {
    let e = err("[CARLA/Server]\nSynchronousMode=True\n\nthis is not a key\n");
    assert_eq!(
        e,
        SettingsError::MalformedLine {
            line: 4,
            text: "this is not a key".into()
        }
    );
    assert_eq!(e.line(), 4);
    assert_eq!(
        e.to_string(),
        "line 4: \"this is not a key\" is not a [Section] header, a Key=Value pair or a ; comment"
    );
    // A huge line is cut in the message (not in the error's fields).
    let long = "x".repeat(10_000);
    let e = err(&format!("[CARLA/Server]\n{long}\n"));
    let message = e.to_string();
    assert!(
        message.starts_with(&format!("line 2: \"{}\"... is not", "x".repeat(80))),
        "{message}"
    );
    assert!(matches!(e, SettingsError::MalformedLine { text, .. } if text == long));
    let e = err(&format!("[CARLA/LevelSettings]\nWeatherId={long}\n"));
    assert!(e.to_string().len() < 200, "{e}");
    for (text, line) in [("[CARLA/Server\n", 1), ("\n[]\n", 2), ("[A]\n=5\n", 2)] {
        let e = err(text);
        assert!(
            matches!(e, SettingsError::MalformedLine { line: l, .. } if l == line),
            "{text:?}: {e:?}"
        );
    }
}

#[test]
fn bad_numbers_and_booleans_are_invalid_values() {
    let e = err(
        "[CARLA/Sensor]\nSensors=CameraRGB\n[CARLA/Sensor/CameraRGB]\n\
                 SensorType=CAMERA\nImageSizeX=abc\n",
    );
    assert_eq!(
        e.to_string(),
        "[CARLA/Sensor/CameraRGB] ImageSizeX=\"abc\": expected an unsigned integer (line 5)"
    );
    assert_eq!(
        e,
        SettingsError::InvalidValue {
            at: Location {
                section: "CARLA/Sensor/CameraRGB".into(),
                key: "ImageSizeX".into(),
                value: "abc".into(),
                line: 5,
            },
            expected: "an unsigned integer",
        }
    );
    let cases = [
        (
            "[CARLA/Server]\nSynchronousMode=maybe\n",
            "[CARLA/Server] SynchronousMode=\"maybe\": expected a boolean \
             (True/False, Yes/No, On/Off or an integer) (line 2)",
        ),
        (
            "[CARLA/LevelSettings]\nWeatherId=1.5\n",
            "[CARLA/LevelSettings] WeatherId=\"1.5\": expected an integer (line 2)",
        ),
        (
            "[CARLA/LevelSettings]\nNumberOfVehicles=\n",
            "[CARLA/LevelSettings] NumberOfVehicles=\"\": expected an unsigned integer (line 2)",
        ),
        (
            "[CARLA/QualitySettings]\nQualityLevel=Ultra\n",
            "[CARLA/QualitySettings] QualityLevel=\"Ultra\": expected Low, Medium, High, \
             Epic or None (line 2)",
        ),
        (
            "[CARLA/Sensor]\nSensors=C\n[CARLA/Sensor/C]\nSensorType=CAMERA\nFOV=wide\n",
            "[CARLA/Sensor/C] FOV=\"wide\": expected a finite number (line 5)",
        ),
        (
            "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nRange=NaN\n",
            "[CARLA/Sensor] Range=\"NaN\": expected a finite number (line 4)",
        ),
        (
            "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nShowDebugPoints=sometimes\n",
            "[CARLA/Sensor] ShowDebugPoints=\"sometimes\": expected a boolean \
             (True/False, Yes/No, On/Off or an integer) (line 4)",
        ),
    ];
    for (text, message) in cases {
        let e = err(text);
        assert!(
            matches!(e, SettingsError::InvalidValue { .. }),
            "{text:?}: {e:?}"
        );
        assert_eq!(e.to_string(), message);
    }
}

#[test]
fn negative_unsigned_values() {
    let e = err("[CARLA/Sensor]\nSensors=C\n[CARLA/Sensor/C]\nSensorType=CAMERA\nImageSizeY=-5\n");
    assert_eq!(
        e.to_string(),
        "[CARLA/Sensor/C] ImageSizeY=\"-5\": must not be negative (line 5)"
    );
    assert!(matches!(e, SettingsError::Negative { .. }));
    for text in [
        "[CARLA/LevelSettings]\nNumberOfVehicles=-1\n",
        "[CARLA/LevelSettings]\nNumberOfPedestrians=-99999999999999999999\n",
        "[CARLA/Server]\nWorldPort=-2000\n",
        "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nChannels=-32\n",
    ] {
        assert!(
            matches!(err(text), SettingsError::Negative { .. }),
            "{text:?}"
        );
    }
}

#[test]
fn values_out_of_range() {
    let e =
        err("[CARLA/Sensor]\nSensors=C\n[CARLA/Sensor/C]\nSensorType=CAMERA\nImageSizeX=16385\n");
    assert_eq!(
        e.to_string(),
        "[CARLA/Sensor/C] ImageSizeX=\"16385\": out of range, allowed 0 to 16384 (line 5)"
    );
    assert!(matches!(e, SettingsError::OutOfRange { .. }));
    let lidar = "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\n";
    let camera = "[CARLA/Sensor]\nSensors=C\nSensorType=CAMERA\n";
    let cases = [
        (format!("{lidar}Channels=257\n"), "allowed 0 to 256"),
        (
            format!("{lidar}PointsPerSecond=10000001\n"),
            "allowed 0 to 10000000",
        ),
        (
            format!("{lidar}Range=0\n"),
            "allowed greater than 0 and at most 1000",
        ),
        (
            format!("{lidar}Range=1000.5\n"),
            "allowed greater than 0 and at most 1000",
        ),
        (
            format!("{lidar}RotationFrequency=-1\n"),
            "allowed greater than 0 and at most 1000",
        ),
        (format!("{lidar}UpperFovLimit=91\n"), "allowed -90 to 90"),
        (format!("{lidar}LowerFovLimit=-90.5\n"), "allowed -90 to 90"),
        (
            format!("{camera}FOV=180\n"),
            "allowed greater than 0 and less than 180",
        ),
        (
            format!("{camera}FOV=0\n"),
            "allowed greater than 0 and less than 180",
        ),
        (format!("{camera}FOV=1e999\n"), "expected a finite number"),
        (
            format!("{camera}PositionX=10000.1\n"),
            "allowed -10000 to 10000",
        ),
        (format!("{camera}RotationYaw=-361\n"), "allowed -360 to 360"),
        (
            "[CARLA/Server]\nWorldPort=65536\n".to_owned(),
            "allowed 0 to 65535",
        ),
        (
            "[CARLA/Server]\nServerTimeOut=4294967296\n".to_owned(),
            "allowed 0 to 4294967295",
        ),
        (
            "[CARLA/LevelSettings]\nNumberOfVehicles=99999999999999999999\n".to_owned(),
            "allowed 0 to 4294967295",
        ),
        (
            "[CARLA/LevelSettings]\nWeatherId=2147483648\n".to_owned(),
            "allowed -2147483648 to 2147483647",
        ),
        (
            "[CARLA/LevelSettings]\nSeedVehicles=-2147483649\n".to_owned(),
            "allowed -2147483648 to 2147483647",
        ),
        (
            "[CARLA/LevelSettings]\nSeedPedestrians=-99999999999999999999\n".to_owned(),
            "allowed -2147483648 to 2147483647",
        ),
    ];
    for (text, allowed) in cases {
        let message = err(&text).to_string();
        assert!(message.contains(allowed), "{text:?}: {message}");
    }
}

#[test]
fn unknown_sensor_type() {
    let e = err("[CARLA/Sensor]\nSensors=Radar\n[CARLA/Sensor/Radar]\nSensorType=RADAR\n");
    assert_eq!(
        e,
        SettingsError::UnknownSensorType {
            sensor: "Radar".into(),
            at: Location {
                section: "CARLA/Sensor/Radar".into(),
                key: "SensorType".into(),
                value: "RADAR".into(),
                line: 4,
            },
        }
    );
    assert_eq!(
        e.to_string(),
        "[CARLA/Sensor/Radar] SensorType=\"RADAR\": unknown sensor type for sensor \"Radar\", \
         expected CAMERA or LIDAR_RAY_CAST (line 4)"
    );
    // A valid type deeper down overrides a bad inherited one.
    let s =
        ok("[CARLA/Sensor]\nSensors=C\nSensorType=RADAR\n[CARLA/Sensor/C]\nSensorType=CAMERA\n");
    assert_eq!(s.sensors.len(), 1);
}

#[test]
fn a_listed_sensor_without_a_type() {
    let e = err(
        "[CARLA/Sensor]\nSensors=Cam,A/B\n[CARLA/Sensor/Cam]\nSensorType=CAMERA\n\
                 [CARLA/Sensor/A/B]\nFOV=10\n",
    );
    assert_eq!(
        e,
        SettingsError::MissingSensorType {
            sensor: "A/B".into(),
            section: "CARLA/Sensor/A/B".into(),
            parents: 2,
            line: 2,
        }
    );
    assert_eq!(
        e.to_string(),
        "sensor \"A/B\" listed in Sensors has no SensorType in [CARLA/Sensor/A/B] \
         or its 2 parent sections (line 2)"
    );
}

#[test]
fn invalid_post_processing() {
    let e = err(
        "[CARLA/Sensor]\nSensors=Cam\n[CARLA/Sensor/Cam]\nSensorType=CAMERA\n\
                 PostProcessing=Fancy\n",
    );
    assert_eq!(
        e,
        SettingsError::InvalidPostProcessing {
            sensor: "Cam".into(),
            at: Location {
                section: "CARLA/Sensor/Cam".into(),
                key: "PostProcessing".into(),
                value: "Fancy".into(),
                line: 5,
            },
        }
    );
    assert_eq!(
        e.to_string(),
        "[CARLA/Sensor/Cam] PostProcessing=\"Fancy\": invalid post-processing for camera \
         \"Cam\", expected None, SceneFinal, Depth or SemanticSegmentation (line 5)"
    );
    // Not inherited, so an invalid value in a parent section is never read.
    let s = ok("[CARLA/Sensor]\nSensors=Cam\nPostProcessing=Fancy\n\
                [CARLA/Sensor/Cam]\nSensorType=CAMERA\n");
    assert_eq!(camera(&s, 0).post_processing, PostProcessing::SceneFinal);
}

#[test]
fn lidar_fov_limits_in_the_wrong_order() {
    let e = err(
        "[CARLA/Sensor]\nSensors=L\n[CARLA/Sensor/L]\nSensorType=LIDAR_RAY_CAST\n\
                 UpperFovLimit=-40\n",
    );
    assert_eq!(
        e,
        SettingsError::FovLimitsReversed {
            sensor: "L".into(),
            at: Location {
                section: "CARLA/Sensor/L".into(),
                key: "UpperFovLimit".into(),
                value: "-40".into(),
                line: 5,
            },
            upper: -40.0,
            lower: -30.0,
        }
    );
    assert_eq!(
        e.to_string(),
        "[CARLA/Sensor/L] UpperFovLimit=\"-40\": lidar \"L\" would have UpperFovLimit (-40) \
         below LowerFovLimit (-30) (line 5)"
    );
    // Only the lower limit given: the error points at it.
    let e = err("[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nLowerFovLimit=20\n");
    assert!(
        matches!(&e, SettingsError::FovLimitsReversed { at, .. } if at.key == "LowerFovLimit" && at.line == 4),
        "{e:?}"
    );
}

#[test]
fn an_error_in_a_later_sensor_fails_the_whole_text() {
    let e = err(&format!(
        "{PYTHON_CLIENT_FILE}[CARLA/Sensor/Lidar32]\nChannels=1000\n"
    ));
    assert!(
        e.to_string()
            .starts_with("[CARLA/Sensor/Lidar32] Channels=\"1000\""),
        "{e}"
    );
}

// ------------------------------------------------------------ budget

fn cameras(n: usize, x: u32, y: u32) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("C{i}")).collect();
    format!(
        "[CARLA/Sensor]\nSensors={}\nSensorType=CAMERA\nImageSizeX={x}\nImageSizeY={y}\n",
        names.join(",")
    )
}

fn over_budget(e: SettingsError) -> (&'static str, String) {
    let text = e.to_string();
    match e {
        SettingsError::OverBudget { limit, .. } => (limit, text),
        other => panic!("expected OverBudget, got {other:?}"),
    }
}

#[test]
fn the_default_budget_admits_eight_full_hd_cameras_and_four_lidars() {
    let mut text = String::from("[CARLA/Sensor]\nSensors=C0,C1,C2,C3,C4,C5,C6,C7,L0,L1,L2,L3\n");
    for i in 0..8 {
        text +=
            &format!("[CARLA/Sensor/C{i}]\nSensorType=CAMERA\nImageSizeX=1920\nImageSizeY=1080\n");
    }
    for i in 0..4 {
        text += &format!(
            "[CARLA/Sensor/L{i}]\nSensorType=LIDAR_RAY_CAST\nChannels=64\n\
             PointsPerSecond=1300000\nRotationFrequency=10\n"
        );
    }
    let s = ok(&text);
    assert_eq!(s.sensors.len(), 12);
    let total: u64 = s.sensors.iter().map(|s| frame_bytes(s, 100)).sum();
    assert_eq!(total, 8 * 1920 * 1080 * 4 + 4 * 130_000 * 24);
}

#[test]
fn a_name_ten_thousand_levels_deep_is_refused_at_once_naming_the_limit() {
    let name = vec!["a"; 10_000].join("/");
    let text = format!("[CARLA/Sensor]\nSensors={name}\n");
    let started = std::time::Instant::now();
    let ((limit, message), lines) = crate::log::capture(|| over_budget(err(&text)));
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert_eq!(limit, "max_name_bytes");
    assert!(message.len() < 200, "{message}");
    assert!(lines.is_empty(), "{lines:?}");
    // Within the byte limit, the depth limit holds.
    let name = ["a"; 9].join("/");
    let (limit, message) = over_budget(err(&format!("[CARLA/Sensor]\nSensors={name}\n")));
    assert_eq!(limit, "max_name_depth");
    assert!(message.contains("has 9 levels"), "{message}");
    assert!(
        message.contains("budget of 8 (max_name_depth) (line 2)"),
        "{message}"
    );
}

#[test]
fn a_deep_name_within_an_unlimited_budget_parses_in_linear_time_and_short_errors() {
    // 2,000 levels without SensorType: the error names the sensor's own
    // section and the number of parents, not every prefix.
    let name = vec!["a"; 2_000].join("/");
    let text = format!("[CARLA/Sensor]\nSensors={name}\n");
    let e = parse_within(&text, &Settings::default(), &Budget::UNLIMITED).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("or its 2000 parent sections"),
        "{}",
        &message[..100]
    );
    assert!(message.len() < 3 * text.len(), "{} bytes", message.len());
}

#[test]
fn two_thousand_cameras_are_refused_before_any_is_built() {
    let (limit, message) = over_budget(err(&cameras(2_000, 720, 512)));
    assert_eq!(limit, "max_sensors");
    assert!(
        message.starts_with("Sensors lists 2000 sensors, over the server's budget of 64"),
        "{message}"
    );
    // 64 small ones are fine; 40 default-size ones are fine (56 MiB).
    assert_eq!(ok(&cameras(64, 64, 48)).sensors.len(), 64);
    assert_eq!(ok(&cameras(40, 720, 512)).sensors.len(), 40);
}

#[test]
fn sensors_that_produce_more_than_the_frame_budget_are_refused() {
    let (limit, message) = over_budget(err(&cameras(1, 16384, 16384)));
    assert_eq!(limit, "max_frame_bytes");
    assert!(
        message.contains("1073741824 bytes per frame, over the server's budget of 134217728"),
        "{message}"
    );
    // Ten full-rate lidars at 10 frames per second: 10 x 1e6 points x 24.
    let lidars = "[CARLA/Sensor]\nSensors=L0,L1,L2,L3,L4,L5,L6,L7,L8,L9\n\
                  SensorType=LIDAR_RAY_CAST\nPointsPerSecond=10000000\n";
    assert_eq!(over_budget(err(lidars)).0, "max_frame_bytes");
    // One is fine at 10 frames per second, not at one frame per second.
    let one = "[CARLA/Sensor]\nSensors=L\nSensorType=LIDAR_RAY_CAST\nPointsPerSecond=10000000\n";
    assert_eq!(ok(one).sensors.len(), 1);
    let slow = Budget {
        frame_ms: 1000,
        ..Budget::default()
    };
    let e = parse_within(one, &Settings::default(), &slow).unwrap_err();
    assert!(e.to_string().contains("240000000 bytes per frame"), "{e}");
    let tight = Budget {
        max_frame_bytes: 64 * 48 * 4 - 1,
        ..Budget::default()
    };
    let e = parse_within(&cameras(1, 64, 48), &Settings::default(), &tight).unwrap_err();
    assert_eq!(over_budget(e).0, "max_frame_bytes");
}

#[test]
fn a_text_over_the_size_limit_is_refused_without_parsing() {
    let text = format!("[CARLA/Server]\n{}", "Junk=1\n".repeat(200_000));
    let ((limit, message), lines) = crate::log::capture(|| over_budget(err(&text)));
    assert_eq!(limit, "max_ini_bytes");
    assert!(
        message.starts_with("the settings text has 1400015 bytes"),
        "{message}"
    );
    assert!(!message.contains("line"), "{message}");
    assert!(lines.is_empty());
}

#[test]
fn a_flood_of_unknown_keys_logs_eleven_lines_and_lists_them_all() {
    let keys: String = (0..5_000).map(|i| format!("K{i}=1\n")).collect();
    let (s, lines) = crate::log::capture(|| ok(&format!("[CARLA/Server]\n{keys}")));
    assert_eq!(s.unknown_keys.len(), 5_000);
    assert_eq!(lines.len(), 11, "{lines:?}");
    assert_eq!(
        lines[10].1,
        "settings: ...and 4990 more unknown keys ignored"
    );
}
