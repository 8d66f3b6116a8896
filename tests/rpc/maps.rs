//! Maps with the unmodified `carla` package: tests/python/maps.py against a
//! Rust host (here) that lists two maps with `set_available_maps`, answers
//! each `LoadEpisode` with `set_map` + `new_episode`, and each
//! `LoadOpenDrive` by keeping the text and parameters it got (or refusing
//! text without an `<OpenDRIVE>` element). The script loads every name form,
//! checks the map's name and text (and that a second, watching client sees
//! each new map), reloads, asks for an unknown map, generates a world from
//! OpenDRIVE text with parameters of its own, sees the host's refusal and,
//! with 0.9.16, sends 100 MiB of text (over the 16 MiB request bound) and
//! goes on on the same connection. The host checks that it received the
//! script's text byte for byte and its parameters.
//!
//! Unix only: the client is a Linux Python (see `python.rs`).
#![cfg(unix)]

use crate::common;

use carla_server::rpc::{EngineCall, EpisodeFrame, EpisodeSettings, OpendriveGenerationParameters};
use carla_server::types::{ActorTransform, CBool, Vector3D};
use carla_server::{Release, Server};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One straight two-lane road of `length` metres, as a valid OpenDRIVE
/// 1.4 text the client parses (`name` goes in the header).
fn straight_road(name: &str, length: u32) -> String {
    format!(
        r#"<?xml version="1.0" standalone="yes"?>
<OpenDRIVE>
    <header revMajor="1" revMinor="4" name="{name}" version="1.00" date="2024-01-01" north="0" south="0" east="{length}" west="0">
        <geoReference><![CDATA[+proj=tmerc +lat_0=0 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs]]></geoReference>
    </header>
    <road name="Road 0" length="{length}.0" id="0" junction="-1">
        <link/>
        <planView>
            <geometry s="0.0" x="0.0" y="0.0" hdg="0.0" length="{length}.0">
                <line/>
            </geometry>
        </planView>
        <elevationProfile>
            <elevation s="0.0" a="0.0" b="0.0" c="0.0" d="0.0"/>
        </elevationProfile>
        <lateralProfile/>
        <lanes>
            <laneOffset s="0.0" a="0.0" b="0.0" c="0.0" d="0.0"/>
            <laneSection s="0.0">
                <left>
                    <lane id="1" type="driving" level="false">
                        <link/>
                        <width sOffset="0.0" a="3.5" b="0.0" c="0.0" d="0.0"/>
                    </lane>
                </left>
                <center>
                    <lane id="0" type="none" level="false">
                        <link/>
                    </lane>
                </center>
                <right>
                    <lane id="-1" type="driving" level="false">
                        <link/>
                        <width sOffset="0.0" a="3.5" b="0.0" c="0.0" d="0.0"/>
                    </lane>
                </right>
            </laneSection>
        </lanes>
    </road>
</OpenDRIVE>
"#
    )
}

fn spawn_points(n: usize) -> Vec<ActorTransform> {
    (0..n)
        .map(|i| ActorTransform {
            location: Vector3D {
                x: 10.0 + 20.0 * i as f32,
                y: -1.75,
                z: 0.5,
            },
            ..Default::default()
        })
        .collect()
}

/// What the host was asked, in order: `load <map> <reset>` and `opendrive
/// <bytes>`.
type Log = Arc<Mutex<Vec<String>>>;
/// The last world built from OpenDRIVE: its text and parameters.
type Built = Arc<Mutex<Option<(Arc<str>, OpendriveGenerationParameters)>>>;

struct MapsHost {
    server: Arc<Server>,
    log: Log,
    built: Built,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl MapsHost {
    fn start(maps: Vec<(&'static str, String, usize)>) -> MapsHost {
        let server = Arc::new(Server::new());
        server.listen_streaming(0).expect("streaming port");
        server.listen_rpc(0).expect("rpc port");
        let rpc = server.rpc().unwrap();
        let names: Vec<&str> = maps.iter().map(|m| m.0).collect();
        rpc.set_available_maps(&names).unwrap();
        let (name, text, n) = &maps[0];
        rpc.set_map(&format!("Carla/Maps/{name}"), &spawn_points(*n), text);
        drop(rpc);
        let (log, built, stop) = (Log::default(), Built::default(), Arc::default());
        let (s, l, b, st) = (
            server.clone(),
            log.clone(),
            built.clone(),
            Arc::clone(&stop),
        );
        let thread = std::thread::spawn(move || run(&s, &maps, &l, &b, &st));
        MapsHost {
            server,
            log,
            built,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for MapsHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(
    server: &Server,
    maps: &[(&'static str, String, usize)],
    log: &Mutex<Vec<String>>,
    built: &Mutex<Option<(Arc<str>, OpendriveGenerationParameters)>>,
    stop: &AtomicBool,
) {
    let rpc = server.rpc().unwrap();
    let mut settings = EpisodeSettings::default();
    let (mut frame, mut elapsed) = (0u64, 0.0f64);
    let started = Instant::now();
    let mut next = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let sync = settings.synchronous_mode.get();
        let mut step = !sync && Instant::now() >= next;
        let mut tick = None;
        if let Some(req) = rpc.poll(Duration::from_millis(5)) {
            match req.call().clone() {
                EngineCall::LoadEpisode {
                    map,
                    reset_settings,
                } => {
                    log.lock()
                        .unwrap()
                        .push(format!("load {map} {reset_settings}"));
                    let known = maps.iter().find(|m| m.0 == map);
                    let generated = built.lock().unwrap().clone();
                    match (known, map.as_str()) {
                        (Some((name, text, n)), _) => {
                            rpc.set_map(&format!("Carla/Maps/{name}"), &spawn_points(*n), text)
                        }
                        (None, "OpenDriveMap") if generated.is_some() => {
                            let (text, _) = generated.unwrap();
                            rpc.set_map("Carla/Maps/OpenDriveMap", &[], &text)
                        }
                        _ => {
                            req.fail(&format!("the test host has no map {map:?}"));
                            continue;
                        }
                    }
                    rpc.new_episode();
                    if reset_settings {
                        settings = EpisodeSettings::default();
                    }
                    req.succeed(0);
                }
                EngineCall::LoadOpenDrive { opendrive, params } => {
                    log.lock()
                        .unwrap()
                        .push(format!("opendrive {}", opendrive.len()));
                    if !opendrive.contains("<OpenDRIVE") {
                        req.fail(&format!(
                            "the test host cannot build a world: no <OpenDRIVE> element in {} bytes",
                            opendrive.len()
                        ));
                        continue;
                    }
                    *built.lock().unwrap() = Some((opendrive, params));
                    req.succeed(0);
                }
                EngineCall::SetEpisodeSettings(s) => {
                    settings = s;
                    req.succeed(0);
                }
                EngineCall::Tick => {
                    step = true;
                    tick = Some(req);
                }
                _ => req.succeed(0),
            }
        }
        if !step {
            continue;
        }
        next = Instant::now() + Duration::from_millis(20);
        frame += 1;
        let dt = settings.fixed_delta().unwrap_or(0.02);
        elapsed += dt;
        let header = EpisodeFrame {
            frame,
            elapsed_seconds: elapsed,
            delta_seconds: dt,
            platform_seconds: started.elapsed().as_secs_f64(),
        };
        rpc.send_episode_state(&header, &[]).unwrap();
        if let Some(req) = tick {
            req.succeed(frame);
        }
    }
}

/// The three texts the script reads, in a folder of their own.
fn write_texts(release: Release) -> (PathBuf, Vec<(&'static str, String, usize)>, String) {
    let dir = std::env::temp_dir().join(format!(
        "carla-maps-{}-{}",
        std::process::id(),
        release.as_str()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let maps = vec![
        ("Town01", straight_road("Town01", 100), 1),
        ("Town02", straight_road("Town02", 200), 2),
    ];
    // Not ASCII: the host must get the bytes, not the characters.
    let generated = straight_road("Straße generiert", 150);
    for (name, text) in maps
        .iter()
        .map(|m| (m.0, &m.1))
        .chain([("generated", &generated)])
    {
        std::fs::write(dir.join(format!("{name}.xodr")), text).unwrap();
    }
    (dir, maps, generated)
}

fn run_maps_script(release: Release, mode: &str) {
    let _gate = crate::allocating_megabytes();
    let (dir, maps, generated) = write_texts(release);
    let host = MapsHost::start(maps);
    let port = match release {
        Release::V0_9_16 => host.server.rpc_addr().unwrap().port(),
        r => host.server.listen_rpc_release(r, 0).unwrap().port(),
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/maps.py");
    let out = Command::new(common::carla_python_of(release))
        .arg(&script)
        .arg("127.0.0.1")
        .arg(port.to_string())
        .arg(release.as_str())
        .arg(&dir)
        .arg(mode)
        .output()
        .expect("python starts");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.lines().last() == Some("OK"),
        "{release} maps.py failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        !stdout.contains("WARNING") && !stderr.contains("WARNING"),
        "client warnings:\n{stdout}\n{stderr}"
    );
    eprintln!("{release}:\n{stdout}");

    // The host was asked for each map by the name it listed, and reset the
    // settings unless the client said not to.
    let log = host.log.lock().unwrap().clone();
    let loads: Vec<&str> = log.iter().filter_map(|l| l.strip_prefix("load ")).collect();
    assert_eq!(
        loads,
        [
            "Town02 true",
            "Town01 true",
            "Town02 true",
            "Town01 true",
            "Town02 true",
            "Town02 true", // reload_world
            "OpenDriveMap false",
            "OpenDriveMap true", // reload_world
            "OpenDriveMap true",
            "Town01 true",
        ],
        "{log:?}"
    );
    // The text and parameters the script sent, exactly; then the refused
    // text (the library refused the negative vertex distance and the
    // 100 MiB text itself: the host never saw them).
    let texts: Vec<&str> = log
        .iter()
        .filter_map(|l| l.strip_prefix("opendrive "))
        .collect();
    let words = "a road, in words".len().to_string();
    assert_eq!(texts, [generated.len().to_string(), words], "{log:?}");
    let (text, params) = host
        .built
        .lock()
        .unwrap()
        .clone()
        .expect("a world was built");
    assert_eq!(text.as_bytes(), generated.as_bytes());
    assert_eq!(
        params,
        OpendriveGenerationParameters {
            vertex_distance: 1.5,
            max_road_length: 30.0,
            wall_height: 0.0,
            additional_width: 0.25,
            smooth_junctions: CBool::FALSE,
            enable_mesh_visibility: CBool::TRUE,
            enable_pedestrian_navigation: CBool::FALSE,
        }
    );
    if mode == "full" {
        assert!(stdout.contains("OVERSIZED"), "{stdout}");
    }
}

#[test]
fn the_unmodified_0_9_16_client_loads_maps_generates_a_world_and_survives_100_mib() {
    run_maps_script(Release::V0_9_16, "full");
}

#[test]
fn the_unmodified_0_9_15_client_loads_maps_and_generates_a_world() {
    run_maps_script(Release::V0_9_15, "short");
}

#[test]
fn the_unmodified_0_9_14_client_loads_maps_and_generates_a_world() {
    run_maps_script(Release::V0_9_14, "short");
}

#[test]
fn the_unmodified_0_9_13_client_loads_maps_and_generates_a_world() {
    run_maps_script(Release::V0_9_13, "short");
}

#[test]
fn the_unmodified_0_9_12_client_loads_maps_and_generates_a_world() {
    run_maps_script(Release::V0_9_12, "short");
}

/// A host whose map loads take `load` while its world ticks on every 20 ms
/// (as an engine that loads a level over many frames), on a thread until
/// `stop`.
fn slow_loading_host(load: Duration, stop: Arc<AtomicBool>) -> (Arc<Server>, JoinHandle<()>) {
    let server = Arc::new(Server::new());
    server.listen_streaming(0).expect("streaming port");
    server.listen_rpc(0).expect("rpc port");
    let rpc = server.rpc().unwrap();
    rpc.set_available_maps(&["Town01"]).unwrap();
    let text = straight_road("Town01", 100);
    rpc.set_map("Carla/Maps/Town01", &spawn_points(2), &text);
    drop(rpc);
    let s = server.clone();
    let thread = std::thread::spawn(move || {
        let rpc = s.rpc().unwrap();
        let (mut frame, started) = (0u64, Instant::now());
        let mut next = Instant::now();
        let mut pending = None;
        while !stop.load(Ordering::Relaxed) {
            if let Some(req) = rpc.poll(Duration::from_millis(2)) {
                if matches!(req.call(), EngineCall::LoadEpisode { .. }) {
                    pending = Some((req, Instant::now() + load));
                } else {
                    req.succeed(0);
                }
            }
            if pending
                .as_ref()
                .is_some_and(|(_, at)| Instant::now() >= *at)
            {
                let (req, _) = pending.take().unwrap();
                rpc.set_map("Carla/Maps/Town01", &spawn_points(2), &text);
                rpc.new_episode();
                req.succeed(0);
            }
            if Instant::now() >= next {
                next += Duration::from_millis(20);
                frame += 1;
                let header = EpisodeFrame {
                    frame,
                    elapsed_seconds: frame as f64 * 0.02,
                    delta_seconds: 0.02,
                    platform_seconds: started.elapsed().as_secs_f64(),
                };
                rpc.send_episode_state(&header, &[]).unwrap();
            }
        }
    });
    (server, thread)
}

/// The stock client's `load_world` drops its episode object right after
/// the answer and subscribes a new one to the world stream; a world
/// message its stream thread is handling just then (one sent while the
/// load ran, with the new episode's id) makes that thread drop the old
/// episode last, racing the new subscription, and the client aborts or
/// segfaults (src/rpc/quiet.rs). So no world message goes out from a
/// load's request until its answer, though the world ticks on; then they
/// flow again, with the new episode's id.
#[test]
fn no_world_message_goes_out_while_a_map_loads() {
    use carla_server::client::{RpcClient, StreamClient};
    let stop = Arc::new(AtomicBool::new(false));
    let (server, host) = slow_loading_host(Duration::from_millis(400), stop.clone());
    let addr = server.rpc_addr().unwrap();
    let mut rpc = RpcClient::connect(addr, Duration::from_secs(10)).unwrap();
    let info = rpc.call("get_episode_info", &[]).unwrap();
    let first_episode = info[0].as_u64().unwrap();
    let token = info[1][0].as_slice().unwrap().to_vec();
    let id = u32::from_le_bytes(token[..4].try_into().unwrap());
    let stream = server.streaming_addr().unwrap();
    let mut world = StreamClient::subscribe(stream, id, Duration::from_secs(10)).unwrap();
    // Arrival time and episode id of every world message, on a thread.
    let arrivals: Arc<Mutex<Vec<(Instant, u64)>>> = Arc::default();
    let reader = {
        let (arrivals, stop) = (arrivals.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let Ok(msg) = world.next_message() else { break };
                let episode = u64::from_le_bytes(msg.payload()[..8].try_into().unwrap());
                arrivals.lock().unwrap().push((Instant::now(), episode));
            }
        })
    };
    let started = Instant::now();
    while arrivals.lock().unwrap().len() < 5 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no world messages"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let asked = Instant::now();
    let loaded = rpc.call(
        "load_new_episode",
        &["Town01".into(), true.into(), rmpv::Value::from(0xffff)],
    );
    let answered = Instant::now();
    assert!(loaded.is_ok(), "{loaded:?}");
    assert!(answered - asked >= Duration::from_millis(400));
    std::thread::sleep(Duration::from_millis(500));
    stop.store(true, Ordering::Relaxed);
    let _ = host.join();
    drop(server);
    let _ = reader.join();
    let arrivals = arrivals.lock().unwrap().clone();
    // 200 ms for a message already on its way when the request went out
    // (a busy machine); the host ticked every 20 ms all along.
    let during: Vec<_> = arrivals
        .iter()
        .filter(|(t, _)| *t > asked + Duration::from_millis(200) && *t < answered)
        .map(|(t, e)| (t.duration_since(asked), e))
        .collect();
    assert!(
        during.is_empty(),
        "world messages during the load: {during:?}"
    );
    let after: Vec<u64> = arrivals
        .iter()
        .filter(|(t, _)| *t > answered)
        .map(|(_, e)| *e)
        .collect();
    assert!(after.len() >= 5, "messages after the load: {after:?}");
    assert!(after.iter().all(|e| *e > first_episode), "{after:?}");
}
