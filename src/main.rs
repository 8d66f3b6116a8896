//! `carla-host`: serves a synthetic world to any CARLA 0.8.4 client.
//!
//! `cargo run --release` listens on world port 2000 (stream 2001, control
//! 2002) and, for whatever sensors the client's settings ask for, sends a
//! camera picture per camera and a rotating lidar sweep every frame, with a
//! player that drives by the client's controls, until Ctrl-C.

mod host;

use carla_server::codes;
use carla_server::types::{
    Agent, Control, SensorDefinition, Transform, Vector3D, CARLA_SERVER_CAMERA,
    CARLA_SERVER_LIDAR_RAY_CAST,
};
use carla_server::{log_error, log_info, log_warn, Server, ServerConfig};
use host::settings::{SensorKind, Settings};
use host::synth::World;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

struct Args {
    port: u32,
    host: std::net::IpAddr,
    timeout_ms: u32,
    fps: f32,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 2000,
        host: [0, 0, 0, 0].into(),
        timeout_ms: 10_000,
        fps: 30.0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match flag.as_str() {
            "--port" | "-p" => {
                args.port = value("--port")?
                    .parse()
                    .map_err(|e| format!("--port: {e}"))?
            }
            "--host" => {
                args.host = value("--host")?
                    .parse()
                    .map_err(|e| format!("--host: {e}"))?
            }
            "--timeout" => {
                args.timeout_ms = value("--timeout")?
                    .parse()
                    .map_err(|e| format!("--timeout: {e}"))?
            }
            "--fps" => args.fps = value("--fps")?.parse().map_err(|e| format!("--fps: {e}"))?,
            "--help" | "-h" => {
                println!("usage: carla-host [--port 2000] [--host 0.0.0.0] [--timeout 10000 (ms)] [--fps 30]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(args)
}

/// One running episode.
struct Episode {
    settings: Settings,
    ids: Vec<u32>,
    world: World,
    header: Vec<u8>,
    data: Vec<u8>,
    agents: Vec<Agent>,
    /// Sync mode: a frame was sent and its control is awaited since then.
    awaiting_control: Option<Instant>,
}

fn start_spots() -> [Transform; 2] {
    let spot = |x: f32, y: f32| Transform {
        location: Vector3D { x, y, z: 0.0 },
        orientation: Vector3D {
            x: 1.0,
            y: 0.0,
            z: 0.0,
        },
        ..Default::default()
    };
    [spot(0.0, -1.75), spot(40.0, -1.75)]
}

fn begin_episode(
    server: &Server,
    ini: &[u8],
    previous_sync: bool,
    timeout: u32,
) -> Result<Episode, i32> {
    let settings = Settings::parse(&String::from_utf8_lossy(ini), previous_sync);
    let ids: Vec<u32> = (0..settings.sensors.len() as u32)
        .map(|i| 0x00C0_FFEE ^ (i * 0x9E37))
        .collect();
    let defs: Vec<SensorDefinition> = settings
        .sensors
        .iter()
        .zip(&ids)
        .map(|(s, &id)| SensorDefinition {
            id,
            r#type: match s.kind {
                SensorKind::Camera { .. } => CARLA_SERVER_CAMERA,
                SensorKind::Lidar { .. } => CARLA_SERVER_LIDAR_RAY_CAST,
            },
            name: s.name.clone(),
        })
        .collect();
    let spots = start_spots();
    server.write_scene_description("SyntheticTown", &spots, &defs, timeout)?;
    let index = server.read_episode_start(timeout)?;
    let start = spots.get(index as usize).unwrap_or(&spots[0]);
    server.write_episode_ready(true, timeout)?;
    log_info!(
        "episode started: {} mode, {} sensor(s): {}",
        if settings.synchronous {
            "synchronous"
        } else {
            "asynchronous"
        },
        defs.len(),
        defs.iter()
            .map(|d| format!("{} (id {:#x})", d.name, d.id))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let world = World::new(&settings.sensors, start);
    Ok(Episode {
        settings,
        ids,
        world,
        header: Vec::new(),
        data: Vec::new(),
        agents: Vec::new(),
        awaiting_control: None,
    })
}

fn platform_ms() -> u32 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u32)
        .unwrap_or(0)
}

/// Sends one frame: sensors first, then the measurement that closes it.
fn send_frame(server: &Server, ep: &mut Episode, dt: f32) {
    for (i, sensor) in ep.settings.sensors.iter().enumerate() {
        ep.world.render(i, sensor, dt, &mut ep.header, &mut ep.data);
        if let Err(code) = server.write_sensor_data(ep.ids[i], &ep.header, &ep.data) {
            log_warn!("sensor {}: {}", sensor.name, codes::describe(code));
        }
    }
    let m = ep.world.measurements(
        platform_ms(),
        ep.settings.send_non_player_agents,
        &mut ep.agents,
    );
    // A stream failure is reported once here; the world port decides about the episode.
    let _ = server.write_measurements(&m, &ep.agents);
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("carla-host: {e}");
            std::process::exit(2);
        }
    };
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let server = Server::with_config(ServerConfig {
        bind_ip: args.host,
        ..Default::default()
    });
    if let Err(code) = server.connect(args.port, args.timeout_ms) {
        log_error!(
            "cannot listen on port {}: {}",
            args.port,
            codes::describe(code)
        );
        std::process::exit(1);
    }
    println!(
        "carla-host: serving a synthetic world on {}:{} (Ctrl-C to stop)",
        args.host, args.port
    );
    let dt = 1.0 / args.fps.max(1.0);
    let period = Duration::from_secs_f32(dt);
    let mut episode: Option<Episode> = None;
    let mut sync = true;
    let mut next_tick = Instant::now();
    let mut status = (Instant::now(), 0u64, 0u64);
    while !STOP.load(Ordering::SeqCst) {
        let wait = if episode.is_some() { 0 } else { 100 };
        match server.read_request_new_episode(wait) {
            Ok(ini) => {
                episode = None;
                match begin_episode(&server, &ini, sync, args.timeout_ms) {
                    Ok(ep) => {
                        sync = ep.settings.synchronous;
                        episode = Some(ep);
                        // Counters are per episode: restart the status baseline.
                        status = (Instant::now(), 0, 0);
                    }
                    Err(code) => log_warn!("episode set-up failed: {}", codes::describe(code)),
                }
                continue;
            }
            Err(codes::TRY_AGAIN) => {}
            Err(code) => {
                log_info!(
                    "world client: {}; waiting for the next one",
                    codes::describe(code)
                );
                episode = None;
            }
        }
        let Some(ep) = episode.as_mut() else { continue };
        // Synchronous mode: the next frame waits for the client's control
        // (up to the server time-out), polling so a new request is seen.
        if let Some(since) = ep.awaiting_control {
            match server.read_control(20) {
                Ok(c) => {
                    ep.awaiting_control = None;
                    ep.world.step(&c, dt);
                }
                Err(codes::TRY_AGAIN)
                    if since.elapsed() < Duration::from_millis(args.timeout_ms.into()) =>
                {
                    continue
                }
                Err(codes::TRY_AGAIN) => {
                    ep.awaiting_control = None;
                    ep.world.step(&Control::default(), dt);
                }
                Err(_) => {
                    // The client closed its control connection (episode end).
                    ep.awaiting_control = None;
                    episode = None;
                    continue;
                }
            }
        }
        send_frame(&server, ep, dt);
        if ep.settings.synchronous {
            ep.awaiting_control = Some(Instant::now());
        } else {
            let control = server.read_control(0).unwrap_or_default();
            ep.world.step(&control, dt);
            next_tick += period;
            let now = Instant::now();
            if next_tick > now {
                std::thread::sleep(next_tick - now);
            } else {
                next_tick = now;
            }
        }
        if status.0.elapsed() >= Duration::from_secs(1) {
            if let Some(stats) = server.agent_stats() {
                let secs = status.0.elapsed().as_secs_f64();
                let frames = stats.frames_sent.saturating_sub(status.1);
                let bytes = stats.bytes_sent.saturating_sub(status.2);
                println!(
                    "frame {:>6}  {:5.1} frames/s  {:7.2} MB/s  controls {}  overwritten {}",
                    ep.world.frame,
                    frames as f64 / secs,
                    bytes as f64 / secs / 1e6,
                    stats.controls_received,
                    stats.measurements_overwritten
                );
                status = (Instant::now(), stats.frames_sent, stats.bytes_sent);
            }
        }
    }
    println!("carla-host: stopping");
    server.disconnect();
}
