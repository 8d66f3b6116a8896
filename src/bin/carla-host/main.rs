//! `carla-host`: a headless demo world any CARLA 0.8.4 client can drive.
//!
//! `cargo run --release` listens on world port 2000 (stream 2001, control
//! 2002, 0.9 streams 2003) and serves a small procedural town: the client's
//! settings choose the traffic and the sensors (ray-cast cameras, a lidar
//! through the library's lidar model); the player's car drives by the
//! client's controls. Runs until Ctrl-C. It uses the library's public API
//! only, so it is also the reference example of how an engine uses it.

mod bench_render;
mod episode;
mod world;

use carla_server::legacy::settings::{Budget, Settings};
use carla_server::types::Control;
use carla_server::{log_error, log_info, Config, Error, Server};
use episode::Episode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

struct Args {
    port: u32,
    stream_port: Option<u32>,
    host: std::net::IpAddr,
    timeout_ms: u32,
    fps: f32,
    budget: Budget,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 2000,
        stream_port: None,
        host: [0, 0, 0, 0].into(),
        timeout_ms: 10_000,
        fps: 30.0,
        budget: Budget::default(),
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
            "--stream-port" => {
                args.stream_port = Some(
                    value("--stream-port")?
                        .parse()
                        .map_err(|e| format!("--stream-port: {e}"))?,
                )
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
            "--max-sensors" | "--max-frame-mb" | "--max-ini-kb" | "--max-name-bytes"
            | "--max-name-depth" => {
                let n: u64 = value(&flag)?.parse().map_err(|e| format!("{flag}: {e}"))?;
                let b = &mut args.budget;
                match flag.as_str() {
                    "--max-sensors" => b.max_sensors = n,
                    "--max-frame-mb" => b.max_frame_bytes = n.saturating_mul(1 << 20),
                    "--max-ini-kb" => b.max_ini_bytes = n.saturating_mul(1 << 10),
                    "--max-name-bytes" => b.max_name_bytes = n,
                    _ => b.max_name_depth = n,
                }
            }
            "--help" | "-h" => {
                println!(
                    "usage: carla-host [--port 2000] [--stream-port PORT+3] [--host 0.0.0.0] \
                     [--timeout 10000 (ms)] [--fps 30 (asynchronous mode)]\n  \
                     budget of one episode's settings: [--max-sensors 64] [--max-frame-mb 128] \
                     [--max-ini-kb 1024] [--max-name-bytes 256] [--max-name-depth 8]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(args)
}

/// Counters for the status line.
struct Status {
    since: Instant,
    frames: u64,
    bytes: u64,
}

fn print_status(server: &Server, ep: &Episode, status: &mut Status) {
    if status.since.elapsed() < Duration::from_secs(1) {
        return;
    }
    let Some(stats) = server.agent_stats() else {
        return;
    };
    let secs = status.since.elapsed().as_secs_f64();
    let (dropped_09, subscribers) = ep.stream_stats(server);
    let clients = usize::from(server.world_client_connected()) + subscribers;
    println!(
        "frame {:>6}  {:6.1} frames/s  {:7.2} MB/s  clients {}  dropped {} (0.8) {} (0.9)",
        ep.world.frame,
        stats.frames_sent.saturating_sub(status.frames) as f64 / secs,
        stats.bytes_sent.saturating_sub(status.bytes) as f64 / secs / 1e6,
        clients,
        stats.measurements_overwritten,
        dropped_09
    );
    *status = Status {
        since: Instant::now(),
        frames: stats.frames_sent,
        bytes: stats.bytes_sent,
    };
}

fn main() {
    bench_render::run_if_asked(); // hidden: --bench-render FRAMES, then exits
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
    let server = Server::with_config(Config {
        bind_ip: args.host,
        stream_timeout: Duration::from_millis(args.timeout_ms.into()),
        ..Default::default()
    });
    if let Err(code) = server.connect(args.port, args.timeout_ms) {
        log_error!("cannot listen on port {}: {}", args.port, code);
        std::process::exit(1);
    }
    let stream_port = args.stream_port.unwrap_or(args.port + 3);
    let streaming = u16::try_from(stream_port)
        .map_err(|_| Error::InvalidPort)
        .and_then(|p| server.listen_streaming(p));
    if let Err(code) = streaming {
        log_error!(
            "cannot listen for 0.9 streams on port {}: {}",
            stream_port,
            code
        );
        std::process::exit(1);
    }
    println!(
        "carla-host: serving a procedural town on {}:{} (0.9 streams on port {}; Ctrl-C to stop)",
        args.host, args.port, stream_port
    );
    let dt = 1.0 / args.fps.max(1.0);
    let budget = Budget {
        frame_ms: (1000.0 * dt).ceil() as u64,
        ..args.budget
    };
    let period = Duration::from_secs_f32(dt);
    let mut episode: Option<Episode> = None;
    let mut previous = Settings::default();
    let mut awaiting_control: Option<Instant> = None;
    let mut next_tick = Instant::now();
    let mut status = Status {
        since: Instant::now(),
        frames: 0,
        bytes: 0,
    };
    while !STOP.load(Ordering::SeqCst) {
        let wait = if episode.is_some() { 0 } else { 100 };
        match server.read_request_new_episode(wait) {
            Ok(ini) => {
                if let Some(old) = episode.take() {
                    old.end(&server);
                }
                awaiting_control = None;
                match Episode::begin(&server, &ini, &previous, &budget, args.timeout_ms) {
                    Ok(ep) => {
                        previous = ep.settings.clone();
                        episode = Some(ep);
                        status = Status {
                            since: Instant::now(),
                            frames: 0,
                            bytes: 0,
                        };
                    }
                    // One line: a refusal names the limit or the bad value.
                    Err(code) => log_error!("episode set-up failed: {}", code),
                }
                continue;
            }
            Err(Error::TryAgain) => {}
            Err(code) => {
                log_info!("world client: {}; waiting for the next one", code);
                if let Some(old) = episode.take() {
                    old.end(&server);
                }
            }
        }
        let Some(ep) = episode.as_mut() else { continue };
        // Synchronous mode: the next frame waits for the client's control
        // (up to the server time-out), polling so a new request is seen.
        if let Some(since) = awaiting_control {
            match server.read_control(20) {
                Ok(c) => {
                    awaiting_control = None;
                    ep.world.step(&c, dt);
                }
                Err(Error::TryAgain)
                    if since.elapsed() < Duration::from_millis(args.timeout_ms.into()) =>
                {
                    continue
                }
                Err(Error::TryAgain) => {
                    awaiting_control = None;
                    ep.world.step(&Control::default(), dt);
                }
                Err(code) => {
                    // The episode ended (the library logged why).
                    log_info!("episode over ({}); waiting for a new episode", code);
                    awaiting_control = None;
                    if let Some(old) = episode.take() {
                        old.end(&server);
                    }
                    continue;
                }
            }
        }
        if let Err(code) = ep.send_frame(&server, dt) {
            // The library logged why the episode ended and closed its
            // connections; wait for the next request.
            log_info!("episode over ({}); waiting for a new episode", code);
            awaiting_control = None;
            if let Some(old) = episode.take() {
                old.end(&server);
            }
            continue;
        }
        if ep.settings.synchronous_mode {
            awaiting_control = Some(Instant::now());
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
        print_status(&server, ep, &mut status);
    }
    println!("carla-host: stopping");
    server.disconnect();
}
