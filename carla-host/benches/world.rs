//! Frames per second the demo world serves a local client in synchronous
//! mode. Run: `cargo bench --bench world`. Prints, in one run:
//! - first, the camera alone: `carla-host --bench-render 60` (ms per
//!   800x600 camera, rasterizer against the old ray caster, and the time to
//!   write each output from a G-buffer);
//! - the physics alone: `carla-host --bench-physics 400` (100 client
//!   vehicles on rigid bodies among 50 walkers: ms per 0.05 s tick, the
//!   same world without them as the baseline);
//! - the baseline: no sensors (protocol + world simulation only);
//! - the default sensors: one 800x600 SceneFinal camera and a
//!   32-channel lidar at 100 000 points/s;
//! - the Python example's sensors: two 800x600 cameras (SceneFinal, Depth)
//!   and the same lidar.
//!
//! Each workload runs the `carla-host` binary of this build in its own
//! process and a client that reads every frame and sends a control back.
//! Then the unmodified 0.9.16 Python client ticks the same binary in
//! synchronous mode with no sensors and with a camera and a semantic lidar,
//! and then with its Traffic Manager driving 100 vehicles among 50 walkers
//! (no sensors) next to the same loop without traffic: ticks/s, the server
//! process's CPU per tick and the game loop's share of each tick
//! (carla-host's exit line; the target is under 5 ms).
//!
//! On the built-in town by default; `CARLA_HOST_BENCH_MAP=path/Town03.xodr`
//! runs every part on that map instead (served with `--maps` its folder
//! and `--map` its name), e.g. one of CARLA's towns fetched by hand.

use carla_server::client::Client;
use carla_server::types::Control;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WARM_UP: u32 = 30;
const FRAMES: u32 = 300;

fn camera(name: &str, post: &str) -> String {
    format!(
        "[CARLA/Sensor/{name}]\nSensorType=CAMERA\nPostProcessing={post}\nImageSizeX=800\nImageSizeY=600\n\
         FOV=90\nPositionX=0.3\nPositionZ=1.3\n"
    )
}

const LIDAR: &str = "[CARLA/Sensor/Lidar32]\nSensorType=LIDAR_RAY_CAST\nChannels=32\nRange=50\n\
    PointsPerSecond=100000\nRotationFrequency=10\nUpperFovLimit=10\nLowerFovLimit=-30\nPositionZ=2.5\n";

fn settings(sensors: &[&str], sections: &str) -> String {
    format!(
        "[CARLA/Server]\nSynchronousMode=True\nSendNonPlayerAgentsInfo=True\n[CARLA/LevelSettings]\n\
         NumberOfVehicles=20\nNumberOfPedestrians=30\nWeatherId=1\n[CARLA/Sensor]\nSensors={}\n{}",
        sensors.join(","),
        sections
    )
}

/// The map of `CARLA_HOST_BENCH_MAP`, if set: (its folder, its name).
fn bench_map() -> Option<(std::path::PathBuf, String)> {
    let path = std::path::PathBuf::from(std::env::var_os("CARLA_HOST_BENCH_MAP")?);
    let name = path.file_stem()?.to_string_lossy().into_owned();
    let dir = path.parent()?.to_path_buf();
    Some((dir, name))
}

/// This build's `carla-host` on `port` (streaming on any free port), its
/// standard output piped.
fn spawn_host(port: u16) -> std::process::Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_carla-host"));
    if let Some((dir, name)) = bench_map() {
        cmd.arg("--maps").arg(dir).args(["--map", &name]);
    }
    cmd.args(["--port", &port.to_string(), "--host", "127.0.0.1"])
        .args(["--stream-port", "0", "--release-ports", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start carla-host")
}

/// [`spawn_host`], its banner read and the rest of its output drained.
fn start_host(port: u16) -> std::process::Child {
    let mut host = spawn_host(port);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    lines.next().expect("banner").expect("stdout");
    std::thread::spawn(move || for _ in lines.by_ref() {});
    host
}

/// (frames per second, megabytes per second received)
fn run(name: &str, port: u16, ini: &str) -> (f64, f64) {
    let mut host = start_host(port);
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(10)).expect("connect");
    client.load_settings(ini).expect("settings");
    client.start_episode(0).expect("episode");
    let mut bytes = 0usize;
    let mut started = Instant::now();
    for i in 0..WARM_UP + FRAMES {
        if i == WARM_UP {
            started = Instant::now();
            bytes = 0;
        }
        let frame = client.read_frame().expect("frame");
        bytes += frame
            .sensors
            .iter()
            .map(|s| s.data.len() + 8)
            .sum::<usize>();
        client
            .send_control(&Control {
                throttle: 0.4,
                ..Default::default()
            })
            .expect("control");
    }
    let secs = started.elapsed().as_secs_f64();
    let _ = host.kill();
    let _ = host.wait();
    let (fps, mbs) = (f64::from(FRAMES) / secs, bytes as f64 / secs / 1e6);
    println!("{name:<44} {fps:8.1} frames/s {mbs:9.1} MB/s");
    (fps, mbs)
}

/// The 0.9.16 Python client in a synchronous loop against the binary
/// (benches/python/sync_loop.py), if a Python with `carla==0.9.16` is
/// there ($CARLA_0916_PYTHON or the venv scripts/test.sh makes at the
/// workspace root).
fn python_09(port: u16) {
    let python = std::env::var_os("CARLA_0916_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../target/venv-carla-0.9.16/bin/python")
        });
    if !python.exists() {
        println!(
            "0.9.16 client: skipped ({} missing; run scripts/test.sh)",
            python.display()
        );
        return;
    }
    let mut host = start_host(port);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/python/sync_loop.py");
    println!("0.9.16 Python client, synchronous loop (its own decoding included):");
    for (workload, ticks, target) in [("none", "3000", 500.0), ("camera_lidar", "200", 60.0)] {
        let out = Command::new(&python)
            .args([script, &port.to_string(), workload, ticks])
            .output()
            .expect("run python");
        let text = String::from_utf8_lossy(&out.stdout);
        let rate: f64 = text
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0.0);
        println!(
            "  {:<44} {rate:8.1} ticks/s  ({:.2} x the target of {target})",
            if workload == "none" {
                "no sensors"
            } else {
                "800x600 RGB camera + semantic lidar 32ch 100k"
            },
            rate / target
        );
    }
    let _ = host.kill();
    let _ = host.wait();
    traffic_09(&python, port + 10);
}

/// The Python client's Traffic Manager with `vehicles` cars and `walkers`
/// walkers against a fresh host: (the script's lines, the host's exit
/// line with the game loop's time per tick).
#[cfg(unix)]
fn traffic_run(
    python: &std::path::Path,
    port: u16,
    vehicles: u32,
    walkers: u32,
) -> (String, String) {
    let mut host = spawn_host(port);
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    // The banner first: a client started before the world port listens
    // never connects and every call of it times out (rpclib does not
    // retry), which is how both rows once printed no result.
    let _ = lines.next();
    let exit_line = std::thread::spawn(move || {
        lines
            .map_while(Result::ok)
            .find(|l| l.contains("server time per tick"))
            .unwrap_or_default()
    });
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/python/traffic_load.py"
    );
    let cache = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/carla-cache");
    let out = Command::new(python)
        .args([script, &port.to_string()])
        .args([vehicles, walkers, 600, host.id()].map(|n| n.to_string()))
        .env("CARLA_CACHE_DIR", cache)
        .output()
        .expect("run python");
    // SIGINT: carla-host prints its summary and stops.
    let _ = Command::new("kill")
        .args(["-INT", &host.id().to_string()])
        .status();
    let _ = host.wait();
    let text = String::from_utf8_lossy(&out.stdout);
    let script_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("traffic") || l.starts_with("server CPU"))
        .collect();
    let mut script = script_lines.join("; ");
    if script.is_empty() {
        // Say why instead of an empty line (a run once printed nothing).
        let errors = String::from_utf8_lossy(&out.stderr);
        let last = errors.lines().rev().find(|l| !l.trim().is_empty());
        script = format!(
            "no result ({}): {}",
            out.status,
            last.unwrap_or("no output")
        );
    }
    (script, exit_line.join().unwrap_or_default())
}

/// The Traffic Manager workload next to its no-traffic baseline.
fn traffic_09(python: &std::path::Path, port: u16) {
    #[cfg(unix)]
    {
        println!("0.9.16 Traffic Manager, synchronous, no sensors (600 ticks after 40):");
        for (name, v, w, p) in [
            ("baseline: no traffic", 0, 0, port),
            ("100 TM vehicles + 50 walkers", 100, 50, port + 3),
        ] {
            let (script, host) = traffic_run(python, p, v, w);
            println!("  {name:<30} {script}");
            println!("  {:<30} {}", "", host.trim_start_matches("carla-host: "));
        }
    }
    #[cfg(not(unix))]
    let _ = (python, port);
}

/// Runs `carla-host FLAG COUNT [MAP]` (one of its hidden benchmarks) and
/// prints what it prints: `--bench-render 60` (the camera),
/// `--bench-physics 400` (100 client vehicles and 50 client walkers; the
/// physics per 0.05 s tick against the same world without them).
fn host_bench(flag: &str, count: &str) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_carla-host"));
    cmd.args([flag, count]);
    if let Some(map) = std::env::var_os("CARLA_HOST_BENCH_MAP") {
        cmd.arg(map);
    }
    let out = cmd.output().expect("run carla-host's benchmark");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.status.success(), "carla-host {flag} failed");
}

fn main() {
    host_bench("--bench-render", "60");
    host_bench("--bench-physics", "400");
    let base: u16 = 23000 + (std::process::id() % 1000) as u16 * 3;
    println!("synchronous mode, {FRAMES} frames after {WARM_UP} warm-up, one client on loopback");
    let (baseline, _) = run("baseline: no sensors", base, &settings(&[], ""));
    let default_ini = settings(
        &["CameraRGB", "Lidar32"],
        &format!("{}{LIDAR}", camera("CameraRGB", "SceneFinal")),
    );
    let (default_fps, _) = run(
        "default: 800x600 SceneFinal + lidar 32ch 100k",
        base + 10,
        &default_ini,
    );
    let example_ini = settings(
        &["CameraRGB", "CameraDepth", "Lidar32"],
        &format!(
            "{}{}{LIDAR}",
            camera("CameraRGB", "SceneFinal"),
            camera("CameraDepth", "Depth")
        ),
    );
    run("python example: 2 cameras + lidar", base + 20, &example_ini);
    println!(
        "default sensors: {:.1} frames/s = {:.2} x the target of 30; {:.0}% of the no-sensor baseline",
        default_fps,
        default_fps / 30.0,
        100.0 * default_fps / baseline
    );
    python_09(base + 30);
}
