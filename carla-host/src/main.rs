//! `carla-host`: a headless demo world that CARLA 0.8.4 clients and
//! CARLA 0.9.16 clients can drive, on the same port.
//!
//! `cargo run --release` listens on port 2000 for both protocols (0.8:
//! stream 2001, control 2002; 0.9 streams on 2003) and serves a small
//! procedural town. A 0.8 client's settings choose the traffic and the
//! sensors and its player's car drives by its controls; 0.9 clients spawn
//! vehicles and sensors, tick it in synchronous mode, read the map. Runs
//! until Ctrl-C. It uses the library's public API only, so it is also the
//! reference example of how an engine uses it.

mod bench_render;
mod episode;
mod log_sink;
mod serve09;
mod tick_times;
mod world;

use carla_server::legacy::settings::{Budget, Settings};
use carla_server::rpc::{ClientBudget, EngineCall, EngineRequest};
use carla_server::types::Control;
use carla_server::{log_error, log_info, Config, Error, Release, Server};
use episode::Episode;
use serve09::Serve09;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tick_times::TickTimes;
use world::{World, WorldConfig};

static STOP: AtomicBool = AtomicBool::new(false);

struct Args {
    port: u32,
    stream_port: Option<u32>,
    host: std::net::IpAddr,
    timeout_ms: u32,
    fps: f32,
    budget: Budget,
    /// A port of its own for 0.9 clients (default: share `port`).
    rpc_port: Option<u16>,
    /// Each 0.9 client's share.
    client_budget: ClientBudget,
    /// The client releases served besides 0.9.16 (default: all).
    releases: Vec<Release>,
    /// Release 0.9.N's RPC port is `release_ports + N` (default: `port`;
    /// 0: each on a free port, named in the banner).
    release_ports: Option<u16>,
    /// Publish sensors on ROS 2, on this DDS domain (`--ros2`).
    ros2_domain: Option<u16>,
    /// Where relative recording names land (`--recordings`).
    recordings: std::path::PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 2000,
        stream_port: None,
        host: [0, 0, 0, 0].into(),
        timeout_ms: 10_000,
        fps: 30.0,
        budget: Budget::default(),
        rpc_port: None,
        client_budget: ClientBudget::default(),
        releases: Release::ALL.to_vec(),
        release_ports: None,
        ros2_domain: None,
        recordings: std::path::PathBuf::from("recordings"),
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
            "--rpc-port" => {
                args.rpc_port = Some(
                    value("--rpc-port")?
                        .parse()
                        .map_err(|e| format!("--rpc-port: {e}"))?,
                )
            }
            "--releases" => args.releases = parse_releases(&value("--releases")?)?,
            "--release-ports" => {
                args.release_ports = Some(
                    value("--release-ports")?
                        .parse()
                        .map_err(|e| format!("--release-ports: {e}"))?,
                )
            }
            // As CARLA's flag; the domain is ROS 2's ROS_DOMAIN_ID (0).
            "--ros2" => {
                let domain = std::env::var("ROS_DOMAIN_ID").unwrap_or_else(|_| "0".into());
                let domain = domain
                    .parse()
                    .map_err(|e| format!("ROS_DOMAIN_ID {domain:?}: {e}"))?;
                args.ros2_domain = Some(args.ros2_domain.unwrap_or(domain));
            }
            "--ros2-domain" => {
                args.ros2_domain = Some(
                    value("--ros2-domain")?
                        .parse()
                        .map_err(|e| format!("--ros2-domain: {e}"))?,
                )
            }
            "--recordings" => args.recordings = value("--recordings")?.into(),
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
            "--max-client-sensors"
            | "--max-client-actors"
            | "--max-client-requests"
            | "--max-client-frame-mb"
            | "--max-connections-per-address" => {
                let n: u64 = value(&flag)?.parse().map_err(|e| format!("{flag}: {e}"))?;
                let b = &mut args.client_budget;
                let count = usize::try_from(n).unwrap_or(usize::MAX);
                match flag.as_str() {
                    "--max-client-sensors" => b.max_sensors = count,
                    "--max-client-actors" => b.max_actors = count,
                    "--max-client-requests" => b.max_requests = count,
                    "--max-client-frame-mb" => b.max_frame_bytes = n.saturating_mul(1 << 20),
                    _ => b.max_connections_per_address = count,
                }
            }
            "--help" | "-h" => {
                println!(
                    "usage: carla-host [--port 2000] [--stream-port PORT+3] [--rpc-port PORT (0.9 \
                     clients on a port of their own; default: the same port as 0.8)] [--host 0.0.0.0] \
                     [--timeout 10000 (ms)] [--fps 30 (asynchronous mode)]\n  \
                     0.9 client releases: [--releases all (or a list: 0.9.12,0.9.14,0.9.16; \
                     0.9.16 is always served)] [--release-ports PORT (release 0.9.N on \
                     --release-ports + N, e.g. 0.9.12 on 2012; 0: free ports, named in the banner)]\n  \
                     ROS 2: [--ros2 (publish sensors enabled for ROS, as CARLA's flag; DDS domain \
                     $ROS_DOMAIN_ID or 0)] [--ros2-domain N]\n  \
                     recorder: [--recordings recordings (the folder of start_recorder's relative \
                     names; created when needed)]\n  \
                     budget of one episode's settings: [--max-sensors 64] [--max-frame-mb 128] \
                     [--max-ini-kb 1024] [--max-name-bytes 256] [--max-name-depth 8]\n  \
                     each 0.9 client's share: [--max-client-sensors 64] [--max-client-actors 2500] \
                     [--max-client-requests 1024] [--max-client-frame-mb 128] \
                     [--max-connections-per-address 32]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(args)
}

/// `all` or a comma-separated list of releases (0.9.16 is always served).
fn parse_releases(list: &str) -> Result<Vec<Release>, String> {
    if list.trim() == "all" {
        return Ok(Release::ALL.to_vec());
    }
    let mut releases = vec![Release::V0_9_16];
    for name in list.split(',').filter(|n| !n.trim().is_empty()) {
        let r: Release = name.parse().map_err(|e| format!("--releases: {e}"))?;
        if !releases.contains(&r) {
            releases.push(r);
        }
    }
    releases.sort();
    Ok(releases)
}

/// Binds the RPC port of every release asked for but 0.9.16 (whose port
/// is the main one); returns the banner's words for them.
fn listen_releases(args: &Args, server: &Server) -> Result<String, String> {
    let base = args.release_ports.unwrap_or(args.port as u16);
    let mut words = Vec::new();
    for &release in args.releases.iter().filter(|r| **r != Release::V0_9_16) {
        let port = match base {
            0 => 0,
            b => b.checked_add(release.number()).ok_or(format!(
                "--release-ports {b}: {release}'s port is over 65535"
            ))?,
        };
        let addr = server.listen_rpc_release(release, port).map_err(|e| {
            format!("cannot listen for CARLA {release} clients on port {port}: {e} (--release-ports or --releases to change)")
        })?;
        words.push(format!("{release} on port {}", addr.port()));
    }
    Ok(words.join(", "))
}

/// Counters for the status line.
struct Status {
    since: Instant,
    frames: u64,
    bytes: u64,
    ticks: u64,
}

fn print_status(
    server: &Server,
    world: &World,
    ep: Option<&Episode>,
    status: &mut Status,
    times: &mut TickTimes,
) {
    if status.since.elapsed() < Duration::from_secs(1) {
        return;
    }
    let secs = status.since.elapsed().as_secs_f64();
    let stats = server.agent_stats();
    let (frames, bytes) = stats.map_or((0, 0), |s| (s.frames_sent, s.bytes_sent));
    let (dropped_09, subscribers) = ep.map_or((0, 0), |ep| ep.stream_stats(server));
    println!(
        "{} frame {:>6}  {:6.1} ticks/s  server {:.2}/{:.2} ms p50/p99  0.8: {:6.1} frames/s {:7.2} MB/s{}  dropped {} (0.8) {} (0.9){}",
        log_sink::now_utc(),
        world.frame,
        world.frame.saturating_sub(status.ticks) as f64 / secs,
        times.window.quantile_ms(0.5),
        times.window.quantile_ms(0.99),
        frames.saturating_sub(status.frames) as f64 / secs,
        bytes.saturating_sub(status.bytes) as f64 / secs / 1e6,
        if server.world_client_connected() || subscribers > 0 { "  (0.8 client)" } else { "" },
        stats.map_or(0, |s| s.measurements_overwritten),
        dropped_09,
        clients_09(server)
    );
    times.new_window();
    *status = Status {
        since: Instant::now(),
        frames,
        bytes,
        ticks: world.frame,
    };
}

/// The status line's 0.9 clients: how many, and what the first four hold
/// (sensors, actors, sensor MB per tick, requests waiting, refusals).
fn clients_09(server: &Server) -> String {
    let usage = server.rpc().map(|r| r.client_usage()).unwrap_or_default();
    if usage.is_empty() {
        return String::new();
    }
    let mut line = format!("  0.9 clients {}:", usage.len());
    for u in usage.iter().take(4) {
        line.push_str(&format!(
            " [#{}{} {}s {}a {:.1}MB {}q {}r]",
            u.id,
            match u.release {
                Release::V0_9_16 => String::new(),
                r => format!(" {r}"),
            },
            u.sensors,
            u.actors,
            u.frame_bytes as f64 / 1e6,
            u.requests,
            u.refused
        ));
    }
    if usage.len() > 4 {
        line.push_str(" ...");
    }
    line
}

fn start(args: &Args, server: &Server) -> Result<(), String> {
    server
        .connect(args.port, args.timeout_ms)
        .map_err(|e| format!("cannot listen on port {}: {}", args.port, e))?;
    let stream_port = args.stream_port.unwrap_or(args.port + 3);
    u16::try_from(stream_port)
        .map_err(|_| Error::InvalidPort)
        .and_then(|p| server.listen_streaming(p))
        .map_err(|e| format!("cannot listen for 0.9 streams on port {stream_port}: {e}"))?;
    let stream_port = server
        .streaming_addr()
        .map_or(stream_port, |a| u32::from(a.port()));
    let rpc_port = args.rpc_port.unwrap_or(args.port as u16);
    server
        .listen_rpc(rpc_port)
        .map_err(|e| format!("cannot listen for 0.9 clients on port {rpc_port}: {e}"))?;
    if let Ok(rpc) = server.rpc() {
        rpc.set_client_budget(args.client_budget);
        let folder = std::env::current_dir()
            .map(|d| d.join(&args.recordings))
            .unwrap_or_else(|_| args.recordings.clone());
        rpc.set_recording_folder(&folder);
    }
    let older = listen_releases(args, server)?;
    if let Some(domain) = args.ros2_domain {
        server
            .start_ros2(domain)
            .map_err(|e| format!("cannot publish on ROS 2 (DDS domain {domain}): {e}"))?;
    }
    println!(
        "carla-host: serving a procedural town on {}:{} (CARLA 0.8.4{}; 0.9.16 clients on port {}, \
         0.9 streams on port {}{}{}; Ctrl-C to stop)",
        args.host,
        args.port,
        if rpc_port as u32 == args.port {
            " and 0.9.16"
        } else {
            ""
        },
        rpc_port,
        stream_port,
        if older.is_empty() { "" } else { "; older 0.9 clients: " },
        older
    );
    if let Some(domain) = args.ros2_domain {
        println!("carla-host: ROS 2 topics on DDS domain {domain} (rt/clock, rt/tf, rt/carla/...)");
    }
    Ok(())
}

/// Ends the 0.8 episode (if any): its sensors go, its player leaves.
fn end_episode(
    server: &Server,
    episode: &mut Option<Episode>,
    world: &mut World,
    serve: &mut Serve09,
) {
    if let Some(old) = episode.take() {
        old.end(server);
    }
    world.deactivate_player();
    serve.player_left(server);
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
    log_sink::install();
    // Ctrl-C, SIGTERM and SIGHUP on Unix, Ctrl-C, Ctrl-Break and console
    // close on Windows: the main loop ends and the server is freed.
    if let Err(e) = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)) {
        log_error!("cannot install the Ctrl-C handler: {}", e);
    }
    let server = Server::with_config(Config {
        bind_ip: args.host,
        stream_timeout: Duration::from_millis(args.timeout_ms.into()),
        ..Default::default()
    });
    if let Err(e) = start(&args, &server) {
        log_error!("{}", e);
        std::process::exit(1);
    }
    let mut serve = match Serve09::setup(&server, world::map::opendrive::GEO_REFERENCE) {
        Ok(s) => s,
        Err(e) => {
            log_error!("cannot set up the 0.9 world: {}", e);
            std::process::exit(1);
        }
    };
    let period = 1.0 / args.fps.max(1.0);
    let budget = Budget {
        frame_ms: (1000.0 * period).ceil() as u64,
        ..args.budget
    };
    let mut world = World::town(&WorldConfig::default());
    serve.new_episode(&server, &world);
    let mut episode: Option<Episode> = None;
    let mut previous = Settings::default();
    let mut awaiting_control: Option<Instant> = None;
    let mut ticks: VecDeque<EngineRequest> = VecDeque::new();
    let mut next_tick = Instant::now();
    let mut status = Status {
        since: Instant::now(),
        frames: 0,
        bytes: 0,
        ticks: 0,
    };
    let timeout = Duration::from_millis(args.timeout_ms.into());
    let mut times = TickTimes::new();
    while !STOP.load(Ordering::SeqCst) {
        // A 0.8 client's new episode: a new world for everyone.
        match server.read_request_new_episode(0) {
            Ok(ini) => {
                end_episode(&server, &mut episode, &mut world, &mut serve);
                awaiting_control = None;
                match Episode::begin(&server, &ini, &previous, &budget, args.timeout_ms) {
                    Ok((ep, w)) => {
                        previous = ep.settings.clone();
                        episode = Some(ep);
                        world = w;
                        serve.new_episode(&server, &world);
                    }
                    // One line: a refusal names the limit or the bad value.
                    Err(code) => log_error!("episode set-up failed: {}", code),
                }
            }
            Err(Error::TryAgain) => {}
            Err(code) => {
                log_info!("world client: {}; waiting for the next one", code);
                end_episode(&server, &mut episode, &mut world, &mut serve);
                awaiting_control = None;
            }
        }
        // What 0.9 clients asked for; a synchronous tick waits in `ticks`.
        let settings = Serve09::settings(&server);
        // Synchronous mode waits for a 0.9 client's ticks; with none
        // connected (a script that left in synchronous mode), the world
        // runs on by itself so 0.8 clients are not frozen.
        let sync09 = settings.synchronous_mode.get()
            && (server.rpc().map_or(0, |r| r.client_count()) > 0 || !ticks.is_empty());
        let wait = if awaiting_control.is_some() || !ticks.is_empty() {
            Duration::ZERO
        } else if sync09 {
            Duration::from_millis(5)
        } else {
            next_tick
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(5))
        };
        let mut first = true;
        while let Ok(Some(req)) = server
            .rpc()
            .map(|r| r.poll(if first { wait } else { Duration::ZERO }))
        {
            first = false;
            let started = Instant::now();
            let handled = serve.handle(&mut world, req);
            times.busy_since(started);
            let Some(req) = handled else {
                continue;
            };
            if !matches!(req.call(), EngineCall::LoadEpisode { .. }) {
                ticks.push_back(req);
            } else if episode.is_some() {
                req.fail(
                    "a CARLA 0.8 client's episode is running and owns the world; \
                     load_world and reload_world work while no 0.8 client is connected",
                );
            } else {
                // As at start-up: the town with the 0.8 defaults.
                world = World::town(&WorldConfig::default());
                serve.new_episode(&server, &world);
                req.succeed(0);
            }
        }
        // Is a tick due?
        let mut control = Control::default();
        let due = if sync09 {
            // 0.9's ticks drive the world; a 0.8 client's latest control
            // is applied as it comes.
            if !ticks.is_empty() && episode.is_some() {
                control = server.read_control(0).unwrap_or_default();
            }
            !ticks.is_empty()
        } else if let Some(since) = awaiting_control {
            match server.read_control(5) {
                Ok(c) => {
                    control = c;
                    true
                }
                Err(Error::TryAgain) => since.elapsed() >= timeout,
                Err(code) => {
                    // The episode ended (the library logged why).
                    log_info!("episode over ({}); waiting for a new episode", code);
                    end_episode(&server, &mut episode, &mut world, &mut serve);
                    awaiting_control = None;
                    false
                }
            }
        } else {
            Instant::now() >= next_tick
        };
        if !due {
            continue;
        }
        if episode.is_some() && awaiting_control.is_none() && !sync09 {
            // Asynchronous 0.8: the control of this frame, if one came.
            control = server.read_control(0).unwrap_or_default();
        }
        let dt = settings.fixed_delta().map_or(period, |d| d as f32);
        let started = Instant::now();
        world.step(&control, dt);
        if let Some(ep) = episode.as_mut() {
            awaiting_control = None;
            if let Err(code) = ep.send_frame(&server, &world, dt) {
                // The library logged why the episode ended and closed its
                // connections; wait for the next request.
                log_info!("episode over ({}); waiting for a new episode", code);
                end_episode(&server, &mut episode, &mut world, &mut serve);
            } else if ep.settings.synchronous_mode {
                awaiting_control = Some(Instant::now());
            }
        }
        serve.after_tick(&server, &world, dt, !settings.no_rendering_mode.get());
        times.busy_since(started);
        times.tick_done();
        if let Some(tick) = ticks.pop_front() {
            tick.succeed(serve.frame);
        }
        if !sync09 {
            next_tick += Duration::from_secs_f32(period);
            let now = Instant::now();
            if next_tick + Duration::from_secs_f32(period) < now {
                next_tick = now;
            }
        }
        print_status(&server, &world, episode.as_ref(), &mut status, &mut times);
    }
    println!("{} carla-host: {}", log_sink::now_utc(), times.summary());
    println!("{} carla-host: stopping", log_sink::now_utc());
    server.disconnect(); // also writes the log summaries still owed
}
