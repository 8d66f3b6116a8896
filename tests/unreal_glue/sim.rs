//! Building and running SimGame: the glue's `.cpp` files compiled unchanged
//! against the stand-in engine, the `.generated.h` files written by the
//! miniature UHT, the library of this build linked in, and helpers shared
//! by the scenarios (the level's numbers mirror SimGame.cpp).

use super::common::chost::{lib_dir, Host};
use super::uht;
use carla_server::client::SensorMessage;
use carla_server::legacy::proto;
use carla_server::types::Rotation3D;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

pub(crate) const CRATE: &str = env!("CARGO_MANIFEST_DIR");
pub(crate) const CLIENT_TIMEOUT: Duration = Duration::from_secs(20);

// ------------------------------------------------ the level (SimGame.cpp)

/// Tick length (SimGame's `DefaultDeltaSeconds`, an f32).
pub(crate) const DT: f64 = 0.05f32 as f64;
/// Half size of both vehicles, metres.
pub(crate) const VEHICLE: [f64; 3] = [2.25, 0.9, 0.75];
/// The wall's face towards the road (y, metres) and its height.
pub(crate) const WALL_Y: f64 = 8.0;
pub(crate) const WALL_TOP: f64 = 5.0;
/// CARLA 0.9.16's tags of the level's labels (the glue's default numbering).
pub(crate) const TAG_ROADS: u32 = 1;
pub(crate) const TAG_WALLS: u32 = 4;
pub(crate) const TAG_CARS: u32 = 14;
/// The stand-in salts of the server actor's depth and semantic materials.
pub(crate) const SALT_DEPTH: u32 = 1;
pub(crate) const SALT_SEMANTIC: u32 = 2;
/// The ids the glue gives the level's vehicles (from 10000, spawn order).
pub(crate) const PLAYER_ID: u32 = 10000;
pub(crate) const ONCOMING_ID: u32 = 10001;

/// The oncoming vehicle's x at simulation time `t`.
pub(crate) fn oncoming_x(t: f64) -> f64 {
    f64::max(12.0, 30.0 - 8.0 * t)
}

/// The stand-in's "rendered" image (StandinCapturePixel): byte c of pixel
/// (x, y) at frame f with post-process salt s is (7x + 13y + 61c + 29f + 101s) mod 256.
pub(crate) fn standin_pixels(w: u32, h: u32, frame: u64, salt: u32) -> Vec<u8> {
    let mut p = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            for c in 0..4u32 {
                let v = x * 7 + y * 13 + c * 61 + (frame as u32).wrapping_mul(29) + salt * 101;
                p.push(v as u8);
            }
        }
    }
    p
}

// ---------------------------------------------------------- building

pub(crate) fn glue_module() -> PathBuf {
    Path::new(CRATE).join("unreal_glue/Source/CarlaServerGlue")
}

pub(crate) fn tests_dir() -> PathBuf {
    Path::new(CRATE).join("unreal_glue/Tests")
}

pub(crate) fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

pub(crate) fn compiler_available(compiler: &str) -> bool {
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
pub(crate) fn compile_flags(compiler: &str) -> Vec<&'static str> {
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

/// The stand-in engine's sources.
fn standin_sources() -> Vec<PathBuf> {
    files_with_ext(&tests_dir().join("Standin"), "cpp")
}

/// Compiles the glue, the stand-in and SimGame with `compiler` (by name)
/// and links them with this build's library.
fn build_sim(compiler: &str) -> PathBuf {
    assert!(
        compiler_available(compiler),
        "{compiler} is not installed: the Unreal glue test compiles the glue with both g++ \
         and clang++ (Debian/Ubuntu: apt-get install clang; scripts/test.sh installs it)"
    );
    let tag = compiler.replace('+', "x");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("unreal_glue_{tag}"));
    let generated = out.join("generated");
    uht::write_generated_headers(&glue_module().join("Public"), &generated);
    let exe = out.join("SimGame");
    let lib = lib_dir();
    let mut sources = files_with_ext(&glue_module().join("Private"), "cpp");
    assert!(sources.len() >= 9, "glue sources: {sources:?}");
    sources.extend(standin_sources());
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
        .args(super::common::chost::sanitizer_flags());
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

/// SimGame built with `compiler`, once per test binary.
pub(crate) fn sim(compiler: &str) -> &'static Path {
    static GXX: OnceLock<PathBuf> = OnceLock::new();
    static CLANG: OnceLock<PathBuf> = OnceLock::new();
    let cell = if compiler.contains("clang") {
        &CLANG
    } else {
        &GXX
    };
    cell.get_or_init(|| build_sim(compiler))
}

/// A plugin directory laid out as the module expects it: the library in
/// `Binaries/ThirdParty/carla_server/Linux/` (a link to this build's, so
/// the module's dlopen finds the copy the executable is linked with).
pub(crate) fn plugin_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("unreal_glue_plugin");
        let bin = dir.join("Binaries/ThirdParty/carla_server/Linux");
        fs::create_dir_all(&bin).expect("create the plugin layout");
        let link = bin.join("libcarla_server.so");
        let target = lib_dir().join("libcarla_server.so");
        if fs::read_link(&link).ok().as_deref() != Some(target.as_path()) {
            let _ = fs::remove_file(&link);
            std::os::unix::fs::symlink(&target, &link).expect("link the library into the plugin");
        }
        dir
    })
    .clone()
}

/// The render-thread / game-thread budget of the stand-in's watchdog: a
/// frame of the game plus room for a busy machine. The old glue blocked the
/// render thread for the 10 s time-out on a stalled subscriber.
pub(crate) const WATCHDOG_MS: &str = "1000";

/// Starts SimGame (`compiler`'s build) for `scenario` with the watchdog on.
pub(crate) fn start(compiler: &str, port: u16, frames: u32, scenario: &str) -> Host {
    start_in(compiler, port, frames, scenario, &plugin_dir())
}

/// [`start`] with the plugin directory `plugin`.
pub(crate) fn start_in(
    compiler: &str,
    port: u16,
    frames: u32,
    scenario: &str,
    plugin: &Path,
) -> Host {
    Host::spawn_with_env(
        sim(compiler),
        &[port.to_string(), frames.to_string(), scenario.to_owned()],
        &[
            ("STANDIN_PLUGIN_DIR", plugin),
            ("STANDIN_WATCHDOG_MS", Path::new(WATCHDOG_MS)),
        ],
    )
}

// ----------------------------------------------------------- helpers

pub(crate) fn v3(v: Option<proto::Vector3D>) -> [f64; 3] {
    let v = v.unwrap_or_default();
    [v.x.into(), v.y.into(), v.z.into()]
}

pub(crate) fn assert_near(what: &str, got: f64, want: f64, tolerance: f64) {
    assert!(
        (got - want).abs() <= tolerance,
        "{what}: got {got}, expected {want} (± {tolerance})"
    );
}

pub(crate) fn assert_near3(what: &str, got: [f64; 3], want: [f64; 3], tolerance: f64) {
    for (i, axis) in ["x", "y", "z"].iter().enumerate() {
        assert_near(&format!("{what}.{axis}"), got[i], want[i], tolerance);
    }
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

pub(crate) fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

pub(crate) fn assert_bytes(what: &str, got: &[u8], want: &[u8]) {
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}: byte {i} is {:#04x}, expected {:#04x}",
            got[i], want[i]
        );
    }
    assert_eq!(got.len(), want.len(), "{what}: length");
}

/// The 0.9 header's transform: location (m) and rotation (deg).
pub(crate) fn header_transform(m: &SensorMessage) -> ([f64; 3], Rotation3D) {
    let h = m.header();
    let location = [24, 28, 32].map(|at| f64::from(f32_at(h, at)));
    let rotation = Rotation3D {
        pitch: f32_at(h, 36),
        yaw: f32_at(h, 40),
        roll: f32_at(h, 44),
    };
    (location, rotation)
}

/// The 0.8 camera record's 24-byte header.
pub(crate) fn legacy_camera_header(frame: u64, w: u32, h: u32, kind: u32, fov: f32) -> Vec<u8> {
    let mut header = frame.to_le_bytes().to_vec();
    for field in [w, h, kind, fov.to_bits()] {
        header.extend_from_slice(&field.to_le_bytes());
    }
    header
}

/// `key value` pairs of the host's `READY ...` line.
pub(crate) struct Ready {
    words: Vec<String>,
}

impl Ready {
    pub(crate) fn parse(line: &str) -> Ready {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        assert!(
            words.first().map(String::as_str) == Some("READY") && words.len() % 2 == 1,
            "unexpected line from SimGame: {line:?}"
        );
        Ready { words }
    }

    pub(crate) fn get(&self, key: &str) -> u64 {
        let i = self
            .words
            .iter()
            .position(|w| w == key)
            .unwrap_or_else(|| panic!("no {key} in {:?}", self.words));
        self.words[i + 1]
            .parse()
            .unwrap_or_else(|_| panic!("{key}: {:?}", self.words[i + 1]))
    }

    pub(crate) fn id(&self, key: &str) -> u32 {
        u32::try_from(self.get(key)).expect("a 32-bit id")
    }
}

/// Connects the 0.8 client, retrying while SimGame starts; a failure says
/// how long it tried and what SimGame printed.
pub(crate) fn connect(host: &mut Host, port: u16) -> carla_server::client::Client {
    let started = std::time::Instant::now();
    let deadline = started + Duration::from_secs(30);
    loop {
        if host.exited() {
            panic!(
                "SimGame exited before a client could connect to {port} (after {:?}):\n{}",
                started.elapsed(),
                host.drain()
            );
        }
        match carla_server::client::Client::connect("127.0.0.1", port, CLIENT_TIMEOUT) {
            Ok(c) => return c,
            Err(e)
                if e.kind() == std::io::ErrorKind::ConnectionRefused
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!(
                "connect to {port}: {e}, after trying for {:?}; SimGame printed:\n{}",
                started.elapsed(),
                host.drain()
            ),
        }
    }
}

/// The `RAN ...` line: frames run and the watchdog's longest wait.
pub(crate) fn check_ran(line: &str) -> (u32, f64) {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(words.first() == Some(&"RAN"), "unexpected line: {line:?}");
    let frames = words[1].parse().expect("frames");
    let longest: f64 = words.last().unwrap().parse().expect("watchdog ms");
    (frames, longest)
}
