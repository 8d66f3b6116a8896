//! Any OpenDRIVE map as the world, driven by the unmodified
//! `carla==0.9.16` package (the scripts of tests/python/maps/ of this
//! crate): the built-in town and the maps `make_maps.py` writes (made into
//! a folder of the test's own at test time, served with `--maps`), each
//! loaded by name and generated from its text; bad maps refused with their
//! reason while the world goes on; and a hero driving a planned route among
//! Traffic Manager traffic with no collision, red light or lane left.
//!
//! Each script run gets a fresh host. A run that hangs in a tick is the
//! client's Traffic Manager deadlock (docs/compatibility.md, "Known
//! client-side failures"; the scripts' watchdog ends such a run after a
//! minute): it gets one fresh try.
#![cfg(unix)]

use crate::common;
use crate::town_09::{run_within_limit, Host};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The maps make_maps.py writes.
const MADE: [&str; 4] = ["Curves", "Crossing", "Roundabout", "Highway"];
/// How long one script run may take (a map's checks take 10-20 s on the
/// debug build, a route 20-40 s).
const LIMIT: Duration = Duration::from_secs(240);
/// The one client warning allowed: the Traffic Manager builds its map
/// cache the first time.
const TM_CACHE: &str = "No InMemoryMap cache found";

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/maps")
}

/// A folder of this process's own under the target's temporary folder.
fn scratch(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "maps-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The Python of `carla==0.9.16` running `script`, with a file cache of
/// its own (the client writes each map's navigation mesh there; runs side
/// by side on one shared cache could read a file another is writing).
fn python(script: &str, cache: &Path) -> Command {
    let mut cmd = Command::new(common::carla_python());
    cmd.arg(scripts().join(script))
        .current_dir(scripts())
        .env("CARLA_CACHE_DIR", cache)
        // No __pycache__ in the source tree (the scripts import agent.py).
        .env("PYTHONDONTWRITEBYTECODE", "1");
    cmd
}

/// A new folder with the maps of make_maps.py.
fn made_maps(tag: &str) -> PathBuf {
    let dir = scratch(tag);
    let _ = std::fs::remove_dir_all(&dir);
    let out = python("make_maps.py", &dir)
        .arg(&dir)
        .output()
        .expect("run make_maps.py");
    assert!(
        out.status.success(),
        "make_maps.py: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for name in MADE {
        assert!(
            dir.join(format!("{name}.xodr")).is_file(),
            "{name}.xodr made"
        );
    }
    dir
}

/// What a script run said: its status, standard output and error.
struct Run {
    ok: bool,
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    fn result(&self) -> &str {
        self.stdout
            .lines()
            .rev()
            .find(|l| l.starts_with("RESULT "))
            .unwrap_or("(no RESULT line)")
    }

    fn failures(&self) -> Vec<&str> {
        (self.stdout.lines())
            .filter(|l| l.starts_with("FAILED"))
            .collect()
    }
}

/// Runs `script args` against a fresh host serving `maps`; once more on a
/// fresh host when it hung: a tick that did not return within a minute
/// (the script's watchdog ends it with Python's stack dump, "Timeout (")
/// or no exit within [`LIMIT`]; or when the client crashed (killed by a
/// signal: the stock client's own threads segfaulted twice in CI while
/// its main thread was in `load_world`, docs/compatibility.md). It passed
/// when it printed OK and warned of nothing but [`TM_CACHE`].
fn run(maps: &Path, script: &str, args: &[&str]) -> Run {
    let maps = maps.to_str().expect("a UTF-8 path");
    let once = || {
        let host = Host::start_with(&["--maps", maps]);
        let cache = scratch("cache");
        let out = run_within_limit(
            python(script, &cache).arg(host.port.to_string()).args(args),
            LIMIT,
        );
        drop(host);
        let _ = std::fs::remove_dir_all(cache);
        out
    };
    let hung = |out: &Option<Output>| {
        out.as_ref()
            .is_none_or(|o| String::from_utf8_lossy(&o.stderr).contains("Timeout ("))
    };
    let started = Instant::now();
    let mut out = once();
    if hung(&out) {
        eprintln!(
            "{script} {args:?}: hung in a tick (the client's Traffic Manager deadlock); once more"
        );
        out = once();
    } else if out.as_ref().is_some_and(crashed) {
        let o = out.as_ref().expect("an exit");
        eprintln!(
            "{script} {args:?}: the client crashed ({}); once more\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        out = once();
    }
    let out: Output =
        out.unwrap_or_else(|| panic!("{script} {args:?}: no exit in {LIMIT:?}, twice"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let warned = (stdout.lines().chain(stderr.lines()))
        .any(|l| l.contains("WARNING") && !l.contains(TM_CACHE));
    let ok = out.status.success() && stdout.lines().any(|l| l == "OK") && !warned;
    eprintln!(
        "{script} {args:?}: {} in {:.0} s",
        if ok { "ok" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    Run {
        ok,
        status: out.status,
        stdout,
        stderr,
    }
}

/// Asserts the run of `what` passed; if not, names its failed checks,
/// its RESULT line and its output.
fn assert_passed(what: &str, r: &Run) {
    println!("{what}: {}", r.result());
    assert!(
        r.ok,
        "{what} failed ({}):\n  {}\n  {}\n--- stdout\n{}--- stderr\n{}",
        r.status,
        r.failures().join("\n  "),
        r.result(),
        r.stdout,
        r.stderr
    );
}

/// tests/python/maps/world.py on one map: the built-in town, or a map
/// make_maps.py writes, by name (spawn points, lights, a semantic camera
/// and lidar, 30 Traffic Manager vehicles and 16 walkers for 600 ticks,
/// the world's traffic on the client's lane centres) and generated from
/// its text (its name, the text back, spawn points, a short drive). One
/// test per map, so the maps run side by side: one after the other they
/// were the longest test but one (138 s on a busy machine).
fn world_is_the_map(name: &str) {
    let dir = made_maps("world");
    let r = if name == "SyntheticTown" {
        run(&dir, "world.py", &[name])
    } else {
        assert!(MADE.contains(&name), "{name} is one make_maps.py writes");
        let file = dir.join(format!("{name}.xodr"));
        run(&dir, "world.py", &[name, file.to_str().unwrap()])
    };
    assert_passed(name, &r);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_builtin_town_is_the_world_by_name_and_from_its_text() {
    world_is_the_map("SyntheticTown");
}

#[test]
fn curves_is_the_world_by_name_and_from_its_text() {
    world_is_the_map("Curves");
}

#[test]
fn crossing_is_the_world_by_name_and_from_its_text() {
    world_is_the_map("Crossing");
}

#[test]
fn roundabout_is_the_world_by_name_and_from_its_text() {
    world_is_the_map("Roundabout");
}

#[test]
fn highway_is_the_world_by_name_and_from_its_text() {
    world_is_the_map("Highway");
}

/// tests/python/maps/bad_maps.py: generate_opendrive_world with text that
/// is not XML, no roads, a NaN, negative or 1e9 m road, a lane section
/// with no lanes, a link to no road, a circular link, 100 MB and a
/// million roads; load_world of an unknown name and of a broken file in
/// --maps. Each is refused naming its cause, and the world ticks on with
/// the map it had.
#[test]
fn bad_maps_are_refused_with_their_reason_and_the_world_goes_on() {
    let dir = made_maps("bad");
    let out = python("bad_maps.py", &dir)
        .arg("--write-broken")
        .arg(&dir)
        .output()
        .expect("run bad_maps.py --write-broken");
    assert!(out.status.success(), "{out:?}");
    let r = run(&dir, "bad_maps.py", &[]);
    assert_passed("bad maps", &r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// tests/python/maps/route.py on map `name`: a hero drives a planned route
/// of 300 m or more through two junctions or more among 25 Traffic
/// Manager vehicles, with no collision, no red light run and no tick off
/// its driving lanes. On the built-in town and on Crossing (its four
/// lights), one test each, so they run side by side (one after the other
/// they were the demo world's longest test, 212 s on a busy machine, and
/// it ended the binary's run).
fn a_hero_drives_a_route_on(name: &str) {
    let dir = made_maps("route");
    let r = run(&dir, "route.py", &[name]);
    assert_passed(&format!("route on {name}"), &r);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hero_drives_a_planned_route_among_traffic_on_the_builtin_town() {
    a_hero_drives_a_route_on("SyntheticTown");
}

#[test]
fn a_hero_drives_a_planned_route_among_traffic_on_crossing() {
    a_hero_drives_a_route_on("Crossing");
}

/// Whether the client process was killed by a signal (a crash of its own).
pub(super) fn crashed(out: &Output) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        out.status.signal().is_some()
    }
    #[cfg(not(unix))]
    {
        let _ = out;
        false
    }
}
