//! The Unreal glue (`unreal_glue/`), compiled unchanged against the stand-in
//! engine (`unreal_glue/Tests/Standin/`) with g++ and with clang++
//! (`-Wall -Wextra -Werror`), linked with this build's `libcarla_server.so`
//! and run as a simulated game (`unreal_glue/Tests/SimGame.cpp`). The test
//! plays both clients at once: the 0.8 client (settings, episode, one
//! control per frame) and one 0.9 subscriber per sensor stream, and checks
//! every frame of both protocols against the level's geometry, which is
//! mirrored here from SimGame.cpp.
//!
//! Linux only: the glue is compiled at test time with the system's g++ and
//! clang++ against the stand-in engine's Linux build, which a Windows test
//! under Wine cannot run (it cannot wait for a Linux process).
#![cfg(target_os = "linux")]

mod common;

use common::chost::{lib_dir, Host};

use carla_server::client::{Client, Frame};
use carla_server::client::{SensorMessage, StreamClient};
use carla_server::legacy::proto;
use carla_server::streaming::rotate_to_world;
use carla_server::types::{CBool, Control, Rotation3D, Vector3D};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

const CRATE: &str = env!("CARGO_MANIFEST_DIR");
const FRAMES: u32 = 60;
const CLIENT_TIMEOUT: Duration = Duration::from_secs(20);

// ------------------------------------------------ the level (SimGame.cpp)

/// Tick length (SimGame's `DeltaSeconds`, an f32).
const DT: f64 = 0.05f32 as f64;
/// Half size of both vehicles, metres.
const VEHICLE: [f64; 3] = [2.25, 0.9, 0.75];
/// The safe-distance sensor's margins (front set by SimGame, others default).
const SAFE_FRONT: f64 = 5.0;
const SAFE_BACK: f64 = 0.5;
const SAFE_LATERAL: f64 = 0.5;
/// The wall's face towards the road (y, metres) and its height.
const WALL_Y: f64 = 8.0;
const WALL_TOP: f64 = 5.0;
/// Semantic tags (custom-depth stencil values) of the level.
const TAG_ROADS: u32 = 7;
const TAG_VEHICLES: u32 = 10;
const TAG_WALLS: u32 = 11;
/// The lidar: 1 m above the player's origin, rotated relative to it.
const LIDAR_OFFSET_Z: f64 = 1.0;
const LIDAR_ROTATION: [f32; 3] = [-5.0, 90.0, 3.0];
const LIDAR_CHANNELS: u32 = 8;
const LIDAR_RANGE: f64 = 30.0;
/// 16000 points/s · 0.05 s / 8 lasers.
const LIDAR_RAYS_PER_LASER: u32 = 100;
/// The camera: 2.3 m ahead of and 0.5 m above the player's origin.
const CAMERA_OFFSET: [f64; 3] = [2.3, 0.0, 0.5];
const CAMERA_SIZE: (u32, u32) = (64, 48);
const CAMERA_LEGACY_ID: u32 = 7001;
/// Registry type ids (src/sensor/registry.rs).
const SAFE_DISTANCE_TYPE: u64 = 22;
const SEMANTIC_LIDAR_TYPE: u64 = 10;
const RGB_CAMERA_TYPE: u64 = 13;
/// The first frame whose safe-distance message holds the oncoming vehicle
/// (from the kinematics below; asserted so a changed level is noticed).
const EXPECTED_ENTRY_FRAME: u32 = 42;

/// The control the client sends after frame `k`: nothing for 5 frames, then
/// half throttle until frame 40, then coasting.
fn control_for(k: u32) -> Control {
    Control {
        throttle: if (5..40).contains(&k) { 0.5 } else { 0.0 },
        hand_brake: CBool::from(false),
        reverse: CBool::from(false),
        ..Default::default()
    }
}

/// The player's (x, forward speed) at frame `k`: the control read after
/// frame j moves the car during frame j + 1 (a = 4 m/s² · throttle,
/// semi-implicit Euler, as ASimVehicle does in centimetres).
fn player_state(k: u32) -> (f64, f64) {
    let (mut x, mut v) = (0.0, 0.0);
    for j in 1..=k {
        let throttle = f64::from(control_for(j - 1).throttle);
        v = f64::max(0.0, v + 4.0 * throttle * DT);
        x += v * DT;
    }
    (x, v)
}

/// The oncoming vehicle's x at simulation time `t`.
fn oncoming_x(t: f64) -> f64 {
    f64::max(12.0, 30.0 - 8.0 * t)
}

/// How deep the oncoming vehicle is inside the safe-distance box (negative:
/// how far outside along x). The box is the player's box grown by the
/// margins; both cars sit on the ground, the oncoming one on the axis.
fn safe_box_margin(player_x: f64, t: f64) -> f64 {
    let (front, back) = (
        player_x + VEHICLE[0] + SAFE_FRONT,
        player_x - VEHICLE[0] - SAFE_BACK,
    );
    let x = oncoming_x(t);
    let along_x = f64::min(front - (x - VEHICLE[0]), (x + VEHICLE[0]) - back);
    let across_y = (VEHICLE[1] + SAFE_LATERAL) + VEHICLE[1];
    let across_z = 2.0 * VEHICLE[2];
    along_x.min(across_y).min(across_z)
}

/// The stand-in's "rendered" image (StandinCapturePixel in StandinRender.h).
fn standin_pixels(frame: u64) -> Vec<u8> {
    let (w, h) = CAMERA_SIZE;
    let mut p = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            for c in 0..4u32 {
                let v = x * 7 + y * 13 + c * 61 + (frame as u32).wrapping_mul(29);
                p.push(v as u8);
            }
        }
    }
    p
}

// ---------------------------------------------------------- building

fn glue_module() -> PathBuf {
    Path::new(CRATE).join("unreal_glue/Source/CarlaServerGlue")
}

fn tests_dir() -> PathBuf {
    Path::new(CRATE).join("unreal_glue/Tests")
}

fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// The `.generated.h` files UHT would write: empty here (the stand-in's
/// macros need nothing from them). Each reflected header must include its
/// own as its last include, as UHT requires.
fn write_generated_stubs(out: &Path) {
    fs::create_dir_all(out).expect("create the generated-header directory");
    for header in files_with_ext(&glue_module().join("Public"), "h") {
        let text = fs::read_to_string(&header).expect("read header");
        let includes: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("#include"))
            .collect();
        let stem = header.file_stem().unwrap().to_string_lossy().into_owned();
        let generated = format!("#include \"{stem}.generated.h\"");
        let reflected = ["UCLASS(", "UINTERFACE(", "USTRUCT("]
            .iter()
            .any(|m| text.contains(m));
        if reflected {
            assert_eq!(
                includes.last().map(|l| l.trim()),
                Some(generated.as_str()),
                "{}: the last include must be {generated}",
                header.display()
            );
            fs::write(out.join(format!("{stem}.generated.h")), "").expect("write stub");
        } else {
            assert!(
                !text.contains(".generated.h"),
                "{}: includes a generated header but declares no UCLASS",
                header.display()
            );
        }
    }
}

fn compiler_available(compiler: &str) -> bool {
    Command::new(compiler)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The flags every source is compiled with (besides include paths):
/// warnings as errors, shadowing too (UE5 treats it as an error), implicit
/// conversions (the stand-in's FVector is UE5's double one, so a silent
/// double → float is caught as MSVC's C4244 would be), no exceptions
/// (Unreal builds without them).
fn compile_flags(compiler: &str) -> Vec<&'static str> {
    let shadow = if compiler.contains("clang") {
        "-Wshadow-all"
    } else {
        "-Wshadow"
    };
    vec![
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        shadow,
        "-Wconversion",
        "-Wsign-conversion",
        "-fno-exceptions",
        "-O1",
        "-g",
        "-pthread",
        // What UBT defines for the module (empty: a monolithic build).
        "-DCARLASERVERGLUE_API=",
    ]
}

/// Compiles the glue's .cpp files, the stand-in and SimGame with
/// `compiler` (by name) and links them with this build's library.
fn build_sim(compiler: &str) -> PathBuf {
    assert!(
        compiler_available(compiler),
        "{compiler} is not installed: the Unreal glue test compiles the glue with both g++ \
         and clang++ (Debian/Ubuntu: apt-get install clang; scripts/test.sh installs it)"
    );
    let tag = compiler.replace('+', "x");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("unreal_glue_{tag}"));
    let generated = out.join("generated");
    write_generated_stubs(&generated);
    let exe = out.join("SimGame");
    let lib = lib_dir();
    let mut sources = files_with_ext(&glue_module().join("Private"), "cpp");
    assert!(sources.len() >= 6, "glue sources: {sources:?}");
    sources.push(tests_dir().join("Standin/Standin.cpp"));
    sources.push(tests_dir().join("SimGame.cpp"));
    let mut cmd = Command::new(compiler);
    cmd.args(compile_flags(compiler))
        .arg(format!("-I{}", tests_dir().join("Standin").display()))
        .arg(format!("-I{}", generated.display()))
        .arg(format!("-I{}", glue_module().join("Public").display()))
        .arg(format!("-I{CRATE}/include"))
        .args(&sources)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg("-lcarla_server")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-ldl")
        .args(common::chost::sanitizer_flags());
    let result = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler}: {e}"));
    assert!(
        result.status.success(),
        "compiling the glue with {compiler} failed: {cmd:?}\n{}{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
    exe
}

/// A plugin directory laid out as the module expects it: the library in
/// `Binaries/ThirdParty/carla_server/Linux/` (a link to this build's, so
/// the module's dlopen finds the copy the executable is linked with).
fn plugin_dir(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("unreal_glue_plugin_{tag}"));
    let bin = dir.join("Binaries/ThirdParty/carla_server/Linux");
    fs::create_dir_all(&bin).expect("create the plugin layout");
    let link = bin.join("libcarla_server.so");
    let target = lib_dir().join("libcarla_server.so");
    if fs::read_link(&link).ok().as_deref() != Some(target.as_path()) {
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(&target, &link).expect("link the library into the plugin");
    }
    dir
}

// ----------------------------------------------------------- helpers

fn v3(v: Option<proto::Vector3D>) -> [f64; 3] {
    let v = v.unwrap_or_default();
    [v.x.into(), v.y.into(), v.z.into()]
}

fn assert_near(what: &str, got: f64, want: f64, tolerance: f64) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, expected {want} (± {tolerance})"
    );
}

fn assert_near3(what: &str, got: [f64; 3], want: [f64; 3], tolerance: f64) {
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        assert_near(&format!("{what}.{axis}"), got[i], want[i], tolerance);
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

fn assert_bytes(what: &str, got: &[u8], want: &[u8]) {
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}: byte {i} is {:#04x}, expected {:#04x}",
            got[i], want[i]
        );
    }
    assert_eq!(got.len(), want.len(), "{what}: length");
}

/// The 0.9 header's transform: location (m) and rotation (deg).
fn header_transform(m: &SensorMessage) -> ([f64; 3], Rotation3D) {
    let h = m.header();
    let location = [24, 28, 32].map(|at| f64::from(f32_at(h, at)));
    let rotation = Rotation3D {
        pitch: f32_at(h, 36),
        yaw: f32_at(h, 40),
        roll: f32_at(h, 44),
    };
    (location, rotation)
}

/// `key value` pairs of the host's `READY ...` line.
struct Ready {
    words: Vec<String>,
}

impl Ready {
    fn parse(line: &str) -> Ready {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        assert!(
            words.first().map(String::as_str) == Some("READY") && words.len() % 2 == 1,
            "unexpected line from SimGame: {line:?}"
        );
        Ready { words }
    }

    fn get(&self, key: &str) -> u64 {
        let i = self
            .words
            .iter()
            .position(|w| w == key)
            .unwrap_or_else(|| panic!("no {key} in {:?}", self.words));
        self.words[i + 1]
            .parse()
            .unwrap_or_else(|_| panic!("{key}: {:?}", self.words[i + 1]))
    }

    fn id(&self, key: &str) -> u32 {
        u32::try_from(self.get(key)).expect("a 32-bit id")
    }
}

type Received = io::Result<(StreamClient, Vec<SensorMessage>)>;

/// Reads `n` messages on its own thread (synchronous streams: the game
/// waits for every subscriber).
fn collect(mut client: StreamClient, n: u32) -> JoinHandle<Received> {
    thread::spawn(move || {
        let mut messages = Vec::with_capacity(n as usize);
        for _ in 0..n {
            messages.push(client.next_message()?);
        }
        Ok((client, messages))
    })
}

fn connect(host: &mut Host, port: u16) -> Client {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            !host.exited(),
            "SimGame exited before a client could connect"
        );
        match Client::connect("127.0.0.1", port, CLIENT_TIMEOUT) {
            Ok(c) => return c,
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused && Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("connect to {port}: {e}"),
        }
    }
}

// ----------------------------------------------------------- checks

/// One 0.8 frame: measurements from the player's kinematics, and the
/// camera's mirrored record (0.8 header + the stand-in's image).
fn check_legacy_frame(frame: &Frame, k: u32, frame0: u64) {
    let what = format!("0.8 frame {k}");
    let m = &frame.measurements;
    assert_eq!(
        m.frame_number,
        frame0 + u64::from(k),
        "{what}: frame number"
    );
    let t_ms = (f64::from(k + 1) * DT * 1000.0).round() as u32;
    assert_eq!(m.game_timestamp, t_ms, "{what}: game timestamp");
    let p = m.player_measurements.unwrap_or_default();
    let transform = p.transform.unwrap_or_default();
    let (x, v) = player_state(k);
    assert_near3(
        &format!("{what}: player location"),
        v3(transform.location),
        [x, 0.0, VEHICLE[2]],
        1e-3,
    );
    assert_near3(
        &format!("{what}: orientation"),
        v3(transform.orientation),
        [1.0, 0.0, 0.0],
        1e-6,
    );
    assert_near(&format!("{what}: speed"), p.forward_speed.into(), v, 1e-3);
    let (_, v_before) = player_state(k.saturating_sub(1));
    assert_near(
        &format!("{what}: acceleration"),
        v3(p.acceleration)[0],
        (v - v_before) / DT,
        1e-2,
    );
    let bbox = p.bounding_box.unwrap_or_default();
    assert_near3(
        &format!("{what}: box extent"),
        v3(bbox.extent),
        VEHICLE,
        1e-5,
    );
    assert_near3(
        &format!("{what}: box offset"),
        v3(bbox.transform.unwrap_or_default().location),
        [0.0; 3],
        1e-5,
    );
    assert!(m.non_player_agents.is_empty(), "{what}: agents");

    let ids: Vec<u32> = frame.sensors.iter().map(|r| r.id).collect();
    assert_eq!(ids, [CAMERA_LEGACY_ID], "{what}: sensor records");
    let record = &frame.sensors[0].data;
    let (w, h) = CAMERA_SIZE;
    let mut header = m.frame_number.to_le_bytes().to_vec();
    for field in [w, h, 1, 90.0f32.to_bits()] {
        header.extend_from_slice(&field.to_le_bytes());
    }
    assert_bytes(&format!("{what}: camera header"), &record[..24], &header);
    assert_bytes(
        &format!("{what}: camera pixels"),
        &record[24..],
        &standin_pixels(m.frame_number),
    );
}

fn check_header(what: &str, m: &SensorMessage, sensor_type: u64, k: u32, frame0: u64) {
    assert_eq!(m.sensor_type(), sensor_type, "{what}: sensor type");
    assert_eq!(m.frame(), frame0 + u64::from(k), "{what}: frame");
    assert_near(
        &format!("{what}: timestamp"),
        m.timestamp(),
        f64::from(k + 1) * DT,
        1e-9,
    );
}

/// Safe distance: the actors in the box, from the geometry. Returns whether
/// the oncoming vehicle was reported.
fn check_safe_distance(m: &SensorMessage, k: u32, frame0: u64, ids: &Ready) -> bool {
    let what = format!("safe distance frame {k}");
    check_header(&what, m, SAFE_DISTANCE_TYPE, k, frame0);
    let (x, _) = player_state(k);
    let (location, rotation) = header_transform(m);
    assert_near3(
        &format!("{what}: location"),
        location,
        [x, 0.0, VEHICLE[2]],
        1e-3,
    );
    assert_eq!(rotation, Rotation3D::default(), "{what}: rotation");
    let got: &[u32] = m.payload_as().expect("a whole number of u32 ids");
    assert!(
        !got.contains(&ids.id("PLAYER")),
        "{what}: the owner is never reported"
    );
    let inside = got == [ids.id("ONCOMING")];
    assert!(got.is_empty() || inside, "{what}: actor ids {got:?}");
    let margin = safe_box_margin(x, m.timestamp());
    if margin.abs() > 1e-3 {
        assert_eq!(
            inside,
            margin > 0.0,
            "{what}: oncoming vehicle {margin} m inside the box, reported {got:?}"
        );
    }
    inside
}

/// Semantic lidar: layout, then every detection in the world frame (through
/// the header's transform) on the surface its tag and object id name.
/// Returns the number of detections per tag (roads, walls, vehicles).
fn check_lidar(m: &SensorMessage, k: u32, frame0: u64, ids: &Ready) -> [usize; 3] {
    let what = format!("lidar frame {k}");
    check_header(&what, m, SEMANTIC_LIDAR_TYPE, k, frame0);
    let (x, _) = player_state(k);
    let (location, rotation) = header_transform(m);
    assert_near3(
        &format!("{what}: location"),
        location,
        [x, 0.0, VEHICLE[2] + LIDAR_OFFSET_Z],
        1e-3,
    );
    for (got, want, axis) in [
        (rotation.pitch, LIDAR_ROTATION[0], "pitch"),
        (rotation.yaw, LIDAR_ROTATION[1], "yaw"),
        (rotation.roll, LIDAR_ROTATION[2], "roll"),
    ] {
        assert_near(&format!("{what}: {axis}"), got.into(), want.into(), 1e-3);
    }
    let p = m.payload();
    assert_eq!(u32_at(p, 4), LIDAR_CHANNELS, "{what}: channels");
    let header = 8 + 4 * LIDAR_CHANNELS as usize;
    let counts: Vec<u32> = (0..LIDAR_CHANNELS as usize)
        .map(|i| u32_at(p, 8 + 4 * i))
        .collect();
    assert!(
        counts.iter().all(|&c| c <= LIDAR_RAYS_PER_LASER),
        "{what}: points per channel {counts:?}"
    );
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    assert_eq!(p.len(), header + 24 * total, "{what}: payload length");
    assert!(total > 300, "{what}: only {total} of 800 rays hit");

    let t = m.timestamp();
    let oncoming = [oncoming_x(t), 0.0, VEHICLE[2]];
    let mut per_tag = [0; 3];
    for i in 0..total {
        let at = header + 24 * i;
        let local = Vector3D {
            x: f32_at(p, at),
            y: f32_at(p, at + 4),
            z: f32_at(p, at + 8),
        };
        let (cos_inc, object, tag) = (f32_at(p, at + 12), u32_at(p, at + 16), u32_at(p, at + 20));
        let d = [local.x, local.y, local.z].map(f64::from);
        let range = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let r = rotate_to_world(&rotation, local);
        let world = [
            location[0] + f64::from(r.x),
            location[1] + f64::from(r.y),
            location[2] + f64::from(r.z),
        ];
        let what = format!("{what}: point {i} at {world:?} (tag {tag}, object {object})");
        assert!(range <= LIDAR_RANGE + 1e-3, "{what}: beyond the range");
        // cos_inc = −direction · normal: the ground's normal is +z, the
        // wall's −y (both in the world; the glue hands them over in the
        // sensor frame).
        match tag {
            TAG_ROADS => {
                assert_eq!(object, ids.id("GROUND"), "{what}: object id");
                assert_near(&format!("{what}: z"), world[2], 0.0, 2e-3);
                let want = (location[2] - world[2]) / range;
                assert_near(&format!("{what}: cos_inc"), cos_inc.into(), want, 1e-3);
                per_tag[0] += 1;
            }
            TAG_WALLS => {
                assert_eq!(object, ids.id("WALL"), "{what}: object id");
                assert_near(&format!("{what}: y"), world[1], WALL_Y, 2e-3);
                assert!((-1e-3..=WALL_TOP + 1e-3).contains(&world[2]), "{what}: z");
                let want = (WALL_Y - location[1]) / range;
                assert_near(&format!("{what}: cos_inc"), cos_inc.into(), want, 1e-3);
                per_tag[1] += 1;
            }
            TAG_VEHICLES => {
                assert_eq!(object, ids.id("ONCOMING"), "{what}: object id");
                // On the oncoming vehicle's box: inside it, and on a face.
                let offsets: Vec<f64> = (0..3).map(|a| (world[a] - oncoming[a]).abs()).collect();
                assert!(
                    (0..3).all(|a| offsets[a] <= VEHICLE[a] + 2e-3),
                    "{what}: not on the oncoming vehicle at x = {}",
                    oncoming[0]
                );
                assert!(
                    (0..3).any(|a| (offsets[a] - VEHICLE[a]).abs() <= 2e-3),
                    "{what}: inside the oncoming vehicle, not on a face"
                );
                per_tag[2] += 1;
            }
            _ => panic!("{what}: unexpected tag"),
        }
    }
    per_tag
}

/// Camera: the stand-in's image for the frame, through the zero-copy path.
fn check_camera(m: &SensorMessage, k: u32, frame0: u64) {
    let what = format!("camera frame {k}");
    check_header(&what, m, RGB_CAMERA_TYPE, k, frame0);
    let (x, _) = player_state(k);
    let (location, _) = header_transform(m);
    let want = [
        x + CAMERA_OFFSET[0],
        CAMERA_OFFSET[1],
        VEHICLE[2] + CAMERA_OFFSET[2],
    ];
    assert_near3(&format!("{what}: location"), location, want, 1e-3);
    let (w, h) = CAMERA_SIZE;
    let mut payload = Vec::new();
    payload.extend_from_slice(&w.to_le_bytes());
    payload.extend_from_slice(&h.to_le_bytes());
    payload.extend_from_slice(&90.0f32.to_le_bytes());
    payload.extend_from_slice(&standin_pixels(m.frame()));
    assert_bytes(&format!("{what}: payload"), m.payload(), &payload);
}

// ------------------------------------------------------------- the run

fn run_sim(compiler: &str) {
    let started = Instant::now();
    let exe = build_sim(compiler);
    let built = started.elapsed();
    let plugin = plugin_dir(&compiler.replace('+', "x"));
    let port = common::free_port_base();
    let mut host = Host::spawn_with_env(
        &exe,
        &[port.to_string(), FRAMES.to_string()],
        &[("STANDIN_PLUGIN_DIR", plugin.as_path())],
    );

    // 0.8: settings → scene → episode (the server actor's BeginPlay).
    let mut client = connect(&mut host, port);
    host.assert_loaded_library();
    let scene = client
        .load_settings(&common::ini(true, &[], ""))
        .expect("load_settings");
    let spot = proto::Transform {
        location: Some(proto::Vector3D {
            x: 0.0,
            y: 0.0,
            z: 0.75,
        }),
        orientation: Some(proto::Vector3D {
            x: 1.0,
            y: 0.0,
            z: 0.0,
        }),
        rotation: Some(proto::Rotation3D::default()),
    };
    let expected_scene = proto::SceneDescription {
        player_start_spots: vec![spot],
        sensors: vec![proto::Sensor {
            id: CAMERA_LEGACY_ID,
            r#type: proto::sensor_type::CAMERA,
            name: "RGBCamera".into(),
        }],
        map_name: "SimTown".into(),
    };
    assert_eq!(scene, expected_scene, "scene description");
    client.start_episode(0).expect("start_episode");

    // 0.9: the sensors exist once every actor has begun play.
    let ids = Ready::parse(&host.next_line());
    let frame0 = ids.get("FRAME");
    let streaming = u16::try_from(ids.get("STREAMING")).expect("a port");
    let readers: Vec<_> = ["SAFE", "LIDAR", "CAMERA"]
        .iter()
        .map(|key| {
            let sub =
                StreamClient::subscribe(("127.0.0.1", streaming), ids.id(key), CLIENT_TIMEOUT)
                    .unwrap_or_else(|e| panic!("subscribe to {key}: {e}"));
            collect(sub, FRAMES)
        })
        .collect();

    // 0.8 frames, one control each (the game waits for it: synchronous).
    for k in 0..FRAMES {
        let frame = client
            .read_frame()
            .unwrap_or_else(|e| panic!("0.8 frame {k}: {e}"));
        check_legacy_frame(&frame, k, frame0);
        client.send_control(&control_for(k)).expect("send_control");
    }
    assert_eq!(
        host.next_line(),
        format!(
            "RAN {FRAMES} FRAMES CONTROLS {FRAMES} RENDER_COMMANDS {}",
            2 * FRAMES
        ),
        "one control applied per frame; capture + read-back per frame on the render thread"
    );

    let mut streams = Vec::new();
    for (r, key) in readers.into_iter().zip(["SAFE", "LIDAR", "CAMERA"]) {
        match r.join().expect("reader thread") {
            Ok(x) => streams.push(x),
            Err(e) => panic!("{key} subscriber: {e}"),
        }
    }
    let mut entry = None;
    let mut tags = [0usize; 3];
    for k in 0..FRAMES {
        let inside = check_safe_distance(&streams[0].1[k as usize], k, frame0, &ids);
        match (inside, entry) {
            (true, None) => entry = Some(k),
            (false, Some(e)) => {
                panic!("frame {k}: the oncoming vehicle left the box (entered at {e})")
            }
            _ => {}
        }
        let per_tag = check_lidar(&streams[1].1[k as usize], k, frame0, &ids);
        for (sum, n) in tags.iter_mut().zip(per_tag) {
            *sum += n;
        }
        check_camera(&streams[2].1[k as usize], k, frame0);
    }
    assert_eq!(
        entry,
        Some(EXPECTED_ENTRY_FRAME),
        "the frame the oncoming vehicle enters the safe-distance box"
    );
    assert!(
        tags.iter().all(|&n| n > 0),
        "detections per tag (roads, walls, vehicles): {tags:?}"
    );

    // EndPlay destroyed the sensors: every stream ends cleanly.
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
    for ((client, _), key) in streams.iter_mut().zip(["SAFE", "LIDAR", "CAMERA"]) {
        assert!(
            client.next().is_none(),
            "{key}: end of file after the last frame"
        );
    }
    drop(client);
    eprintln!(
        "SimGame ({compiler}): built in {built:?}; {FRAMES} frames in both protocols, \
         {tags:?} lidar detections (roads, walls, vehicles), entry at frame {}; \
         whole run {:?}",
        EXPECTED_ENTRY_FRAME,
        started.elapsed()
    );
}

#[test]
fn glue_built_with_gxx_serves_both_protocols() {
    run_sim("g++");
}

#[test]
fn glue_built_with_clangxx_serves_both_protocols() {
    run_sim("clang++");
}

/// The kinematics the level was tuned with: the vehicle enters at
/// EXPECTED_ENTRY_FRAME with a clear margin on either side, and the cars
/// never touch.
#[test]
fn the_level_has_a_clear_entry_frame_and_no_collision() {
    let mut entry = None;
    for k in 0..FRAMES {
        let (x, _) = player_state(k);
        let t = f64::from(k + 1) * DT;
        let margin = safe_box_margin(x, t);
        assert!(margin.abs() > 0.05, "frame {k}: margin {margin} m");
        if margin > 0.0 && entry.is_none() {
            entry = Some(k);
        }
        let gap = (oncoming_x(t) - VEHICLE[0]) - (x + VEHICLE[0]);
        assert!(gap > 0.5, "frame {k}: the cars are {gap} m apart");
    }
    assert_eq!(entry, Some(EXPECTED_ENTRY_FRAME));
}

/// The plugin's files agree on the module name and ship the library; the
/// glue keeps to Unreal's rules (no RTTI, no exceptions) and leaves the
/// data formats to the library.
#[test]
fn plugin_files_are_consistent_and_the_glue_stays_thin() {
    let root = Path::new(CRATE).join("unreal_glue");
    let read = |p: &Path| fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let uplugin = read(&root.join("CarlaServerGlue.uplugin"));
    assert!(
        uplugin.contains("\"Name\": \"CarlaServerGlue\""),
        "{uplugin}"
    );
    let build = read(&glue_module().join("CarlaServerGlue.Build.cs"));
    for needle in [
        "public class CarlaServerGlue : ModuleRules",
        "libcarla_server.so",
        "carla_server.dll.lib",
        "PublicDelayLoadDLLs.Add(\"carla_server.dll\")",
        "RuntimeDependencies.Add(\"$(PluginDir)/Binaries/ThirdParty/carla_server/Linux/libcarla_server.so\")",
        "RuntimeDependencies.Add(\"$(PluginDir)/Binaries/ThirdParty/carla_server/Win64/carla_server.dll\")",
    ] {
        assert!(build.contains(needle), "Build.cs lacks {needle}");
    }
    let module = read(&glue_module().join("Private/CarlaServerGlue.cpp"));
    assert!(module.contains("IMPLEMENT_MODULE(FCarlaServerGlueModule, CarlaServerGlue)"));
    for dir in ["Public", "Private"] {
        for ext in ["h", "cpp"] {
            for file in files_with_ext(&glue_module().join(dir), ext) {
                let text = read(&file);
                for banned in [
                    // Unreal builds without RTTI and exceptions.
                    "dynamic_cast",
                    "typeid",
                    "throw ",
                    "try\n",
                    // Payloads are serialized by the library, not the glue.
                    "carla_write_sensor_data",
                    "carla_sensor_send_raw",
                    "carla_sensor_send_image",
                    // Data symbols: a delay-loaded DLL cannot export them
                    // (MSVC LNK1194); the glue uses CarlaGlue::Success etc.
                    "CARLA_SERVER_SUCCESS",
                    "CARLA_SERVER_TRY_AGAIN",
                    "CARLA_SERVER_TIMED_OUT",
                    "CARLA_SERVER_OPERATION_ABORTED",
                ] {
                    assert!(
                        !text.contains(banned),
                        "{}: uses {banned:?}",
                        file.display()
                    );
                }
            }
        }
    }
}
