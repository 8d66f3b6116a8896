//! `carla-host`: a headless demo world that CARLA 0.8.4 clients and
//! CARLA 0.9.16 clients can drive, on the same port.
//!
//! `cargo run --release` listens on port 2000 for both protocols (0.8:
//! stream 2001, control 2002; 0.9 streams on 2003) and serves a world built
//! from an OpenDRIVE map: the built-in town, or any of `--maps DIR`, or one
//! a client sends. A 0.8 client's settings choose the traffic and the
//! sensors and its player's car drives by its controls; 0.9 clients load
//! maps, spawn vehicles and sensors, tick it in synchronous mode, read the
//! map. Runs until Ctrl-C. It uses the library's public API only, so it is
//! also the reference example of how an engine uses it.

mod args;
mod bench_physics;
mod bench_render;
mod episode;
mod log_sink;
mod maps;
mod ports;
mod serve09;
mod tick_times;
mod world;

use args::Args;
use carla_server::legacy::settings::{Budget, Settings};
use carla_server::ros2::Ros2Options;
use carla_server::rpc::{EngineCall, EngineRequest};
use carla_server::types::Control;
use carla_server::{log_error, log_info, log_warn, Config, Error, Release, Server};
use clap::Parser;
use episode::Episode;
use ports::Ports;
use serve09::Serve09;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tick_times::TickTimes;
use world::{Town, World};

static STOP: AtomicBool = AtomicBool::new(false);

/// Binds the RPC port of every release asked for but 0.9.16 (whose port
/// is the main one) on `base` + N (`base` 0: free ports); returns them.
fn listen_releases(args: &Args, server: &Server, base: u16) -> Result<Vec<(Release, u16)>, String> {
    let mut bound = Vec::new();
    for &release in args.releases.0.iter().filter(|r| **r != Release::V0_9_16) {
        let port = match base {
            0 => 0,
            b => b.checked_add(release.number()).ok_or(format!(
                "--release-ports {b}: {release}'s port is over 65535"
            ))?,
        };
        let addr = server.listen_rpc_release(release, port).map_err(|e| {
            format!("cannot listen for CARLA {release} clients on port {port}: {e} (--release-ports or --releases to change)")
        })?;
        bound.push((release, addr.port()));
    }
    Ok(bound)
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

/// Binds every port; returns the banner, which `main` prints once the
/// world is set up (clients and scripts wait for it: a client served
/// before would find no map or navigation mesh yet), and the ports.
fn start(args: &Args, server: &Server, town: &str) -> Result<(Vec<String>, Ports), String> {
    if args.port > u16::MAX - 3 {
        return Err(format!(
            "--port {}: the ports after it (P+1, P+2, P+3) must be below 65536",
            args.port
        ));
    }
    let port = if args.port == 0 {
        ports::connect_free(server, args.host, args.timeout)?
    } else {
        server
            .connect(u32::from(args.port), args.timeout)
            .map_err(|e| format!("cannot listen on port {}: {}", args.port, e))?;
        args.port
    };
    // --port 0: everything else on free ports too, unless named.
    let free = |p: u16| if args.port == 0 { 0 } else { p };
    let stream_port = args.stream_port.unwrap_or(free(port + 3));
    server
        .listen_streaming(stream_port)
        .map_err(|e| format!("cannot listen for 0.9 streams on port {stream_port}: {e}"))?;
    let stream_port = server.streaming_addr().map_or(stream_port, |a| a.port());
    let rpc_port = args.rpc_port.unwrap_or(port);
    let rpc_port = server
        .listen_rpc(rpc_port)
        .map_err(|e| format!("cannot listen for 0.9 clients on port {rpc_port}: {e}"))?
        .port();
    if let Ok(rpc) = server.rpc() {
        rpc.set_client_budget(args.client_budget());
        let folder = std::env::current_dir()
            .map(|d| d.join(&args.recordings))
            .unwrap_or_else(|_| args.recordings.clone());
        rpc.set_recording_folder(&folder);
    }
    let releases = listen_releases(args, server, args.release_ports.unwrap_or(free(port)))?;
    let ros2 = args.ros2_domain()?;
    if let Some(domain) = ros2 {
        server
            .start_ros2_with(Ros2Options {
                domain_id: domain,
                other_host_datagram: args.ros2_datagram,
            })
            .map_err(|e| format!("cannot publish on ROS 2 (DDS domain {domain}): {e}"))?;
    }
    let older: Vec<String> = releases
        .iter()
        .map(|(r, p)| format!("{r} on port {p}"))
        .collect();
    let mut banner = vec![format!(
        "carla-host: serving {} on {}:{} (CARLA 0.8.4{}; 0.9.16 clients on port {}, \
         0.9 streams on port {}{}{}; Ctrl-C to stop)",
        town,
        args.host,
        port,
        if rpc_port == port { " and 0.9.16" } else { "" },
        rpc_port,
        stream_port,
        if older.is_empty() {
            ""
        } else {
            "; older 0.9 clients: "
        },
        older.join(", ")
    )];
    if let Some(domain) = ros2 {
        banner.push(format!(
            "carla-host: ROS 2 topics on DDS domain {domain} (rt/clock, rt/tf, rt/carla/...)"
        ));
    }
    let ports = Ports {
        host: args.host,
        world: port,
        rpc: rpc_port,
        streaming: stream_port,
        releases,
        ros2_domain: ros2,
        map: format!("Carla/Maps/{town}"),
    };
    Ok((banner, ports))
}

/// The maps: the catalog, the town the world runs on, the last one a
/// client generated from OpenDRIVE text.
struct Maps {
    catalog: maps::Catalog,
    town: Arc<Town>,
    generated: Option<Arc<Town>>,
}

impl Maps {
    /// The town a `LoadEpisode` or `LoadOpenDrive` asks for.
    fn load(&mut self, call: &EngineCall) -> Result<Arc<Town>, String> {
        match call {
            EngineCall::LoadEpisode { map, .. } => {
                if map.eq_ignore_ascii_case(&self.town.map.name) {
                    Ok(self.town.clone())
                } else if map.eq_ignore_ascii_case(maps::GENERATED) {
                    self.generated
                        .clone()
                        .ok_or_else(|| "no world has been generated from OpenDRIVE text".into())
                } else {
                    self.catalog.load(map)
                }
            }
            EngineCall::LoadOpenDrive { opendrive, params } => {
                let town = Town::load(maps::GENERATED, opendrive.clone(), maps::options(params))?;
                self.generated = Some(town.clone());
                Ok(town)
            }
            other => Err(format!("{} is not a map request", other.name())),
        }
    }
}

/// The catalog of `--maps` and the town of `--map` (the built-in one by
/// default).
fn open_maps(args: &Args) -> Result<(maps::Catalog, Arc<Town>), String> {
    let catalog = maps::Catalog::new(args.maps.as_deref())?;
    let name = args.map.as_deref().unwrap_or(world::map::builtin::NAME);
    let listed = catalog.find(name).ok_or_else(|| {
        format!(
            "--map {name}: no such map (this server has {})",
            catalog.names().join(", ")
        )
    })?;
    let town = catalog.load(listed)?;
    for w in town.map.warnings.iter().take(20) {
        carla_server::log_warn!("map {}: {}", town.map.name, w);
    }
    Ok((catalog, town))
}

/// `--exit-with-stdin`: a thread reads standard input to its end (or
/// error) and then asks the main loop to stop, as Ctrl-C does.
fn watch_stdin() {
    let spawned = std::thread::Builder::new()
        .name("stdin-watch".into())
        .spawn(|| {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin().lock();
            loop {
                match std::io::Read::read(&mut stdin, &mut sink) {
                    Ok(0) => break,
                    Err(e) if e.kind() != std::io::ErrorKind::Interrupted => break,
                    _ => {}
                }
            }
            log_info!("standard input closed: stopping (--exit-with-stdin)");
            STOP.store(true, Ordering::SeqCst);
        });
    if let Err(e) = spawned {
        log_error!("--exit-with-stdin: cannot watch standard input: {}", e);
        std::process::exit(1);
    }
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
    bench_physics::run_if_asked(); // hidden: --bench-physics TICKS, then exits
    let args = Args::parse();
    log_sink::install();
    world::rendering::shadow::cast_shadows(args.quality_level == args::Quality::Epic);
    // Ctrl-C, SIGTERM and SIGHUP on Unix, Ctrl-C, Ctrl-Break and console
    // close on Windows: the main loop ends and the server is freed.
    if let Err(e) = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)) {
        log_error!("cannot install the Ctrl-C handler: {}", e);
    }
    let server = Server::with_config(Config {
        bind_ip: args.host,
        stream_timeout: Duration::from_millis(args.timeout.into()),
        ..Default::default()
    });
    if let Some(path) = &args.ports_file {
        if let Err(e) = ports::check_file(path) {
            log_error!("{}", e);
            std::process::exit(1);
        }
    }
    let (catalog, town) = match open_maps(&args) {
        Ok(m) => m,
        Err(e) => {
            log_error!("{}", e);
            std::process::exit(1);
        }
    };
    let (banner, ports) = match start(&args, &server, &town.map.name) {
        Ok(b) => b,
        Err(e) => {
            log_error!("{}", e);
            std::process::exit(1);
        }
    };
    let mut serve = match Serve09::setup(&server) {
        Ok(s) => s,
        Err(e) => {
            log_error!("cannot set up the 0.9 world: {}", e);
            std::process::exit(1);
        }
    };
    if let Ok(rpc) = server.rpc() {
        if let Err(e) = rpc.set_available_maps(&catalog.names()) {
            log_error!("cannot list the maps: {}", e);
        }
    }
    let mut maps = Maps {
        catalog,
        town,
        generated: None,
    };
    serve.show_town(&server, &maps.town);
    let period = 1.0 / args.fps.max(1.0);
    let budget = Budget {
        frame_ms: (1000.0 * period).ceil() as u64,
        ..args.budget()
    };
    let mut world = World::town(&maps.town, &args.world_config());
    serve.new_episode(&server, &world);
    // Ready: the map, its navigation mesh and the town's actors are set.
    for line in &banner {
        println!("{line}");
    }
    let ports_line = ports.json();
    println!("{ports_line}");
    if let Some(path) = &args.ports_file {
        if let Err(e) = ports::write_file(path, &ports_line) {
            log_error!("{}", e);
            std::process::exit(1);
        }
    }
    if args.exit_with_stdin {
        watch_stdin();
    }
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
    let timeout = Duration::from_millis(args.timeout.into());
    let mut times = TickTimes::new();
    while !STOP.load(Ordering::SeqCst) {
        // A 0.8 client's new episode: a new world for everyone.
        match server.read_request_new_episode(0) {
            Ok(ini) => {
                end_episode(&server, &mut episode, &mut world, &mut serve);
                awaiting_control = None;
                match Episode::begin(&server, &maps.town, &ini, &previous, &budget, args.timeout) {
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
            let handled = serve.handle(&server, &mut world, req);
            times.busy_since(started);
            let Some(req) = handled else {
                continue;
            };
            if matches!(req.call(), EngineCall::Tick) {
                ticks.push_back(req);
            } else if episode.is_some() {
                req.fail(
                    "a CARLA 0.8 client's episode is running and owns the world; \
                     load_world, reload_world and generate_opendrive_world work while no 0.8 client is connected",
                );
            } else {
                let started = Instant::now();
                match maps.load(req.call()) {
                    Ok(town) => {
                        serve.show_town(&server, &town);
                        world = World::town(&town, &args.world_config());
                        serve.new_episode(&server, &world);
                        log_info!(
                            "map {} loaded in {:.0} ms",
                            town.map.name,
                            started.elapsed().as_secs_f64() * 1e3
                        );
                        for w in town.map.warnings.iter().take(20) {
                            log_warn!("map {}: {}", town.map.name, w);
                        }
                        maps.town = town;
                        req.succeed(0);
                    }
                    Err(e) => {
                        log_warn!("{}: {}", req.call().name(), e);
                        req.fail(&e);
                    }
                }
            }
        }
        // The settings again: a switch to synchronous mode answered above
        // must stop this loop's own ticks at once (the client's first
        // tick_cue was promised the next frame).
        let settings = Serve09::settings(&server);
        let sync09 = settings.synchronous_mode.get()
            && (server.rpc().map_or(0, |r| r.client_count()) > 0 || !ticks.is_empty());
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
        world.set_substepping(
            settings.substepping.get(),
            settings.max_substep_delta_time,
            settings.max_substeps,
        );
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
            let step = Duration::from_secs_f32(period);
            next_tick += step;
            let now = Instant::now();
            if next_tick + step < now {
                next_tick = now;
            } else if next_tick > now + step {
                // Ticks a synchronous 0.8 client drove faster than real
                // time: once it goes, the world runs on from now (it stood
                // as long as the client had run ahead, and a new episode's
                // first frame waited for it).
                next_tick = now + step;
            }
        }
        print_status(&server, &world, episode.as_ref(), &mut status, &mut times);
    }
    println!("{} carla-host: {}", log_sink::now_utc(), times.summary());
    println!("{} carla-host: stopping", log_sink::now_utc());
    server.disconnect(); // also writes the log summaries still owed
}
