//! The built-in town checked by the real `carla==0.9.16` client: writes the
//! map and what to expect of it (worked out from the generator's own
//! network, not from the text), runs tests/python/builtin_map_offline.py,
//! which loads the map offline with `carla.Map`, and fails unless it prints
//! OK.

use super::*;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::Command;

/// A signal's expected place, Unreal frame: the point `t` left of `s` on
/// the road's line (signals stand on roads between nodes, all lines).
fn unreal_spot(road: &Road, s: f64, t: f64) -> (f64, f64) {
    let (sin, cos) = road.hdg.sin_cos();
    (road.x + s * cos - t * sin, -(road.y + s * sin + t * cos))
}

/// `[a, b, ...]` of already formatted items.
fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// What the client must find (see tests/python/builtin_map_offline.py).
fn expectations() -> String {
    let net = network();
    let road = |id: u32| &net.roads[(id - Network::first_road()) as usize];
    let mut approaches = Vec::new();
    let mut groups = Vec::new();
    for j in &net.junctions {
        let mut incoming: Vec<(u32, i32)> =
            j.connections.iter().map(|c| (c.incoming, c.from)).collect();
        incoming.dedup();
        for &(r, lane) in &incoming {
            let movements = j.connections.iter().filter(|c| c.incoming == r).count();
            let s = if lane < 0 { road(r).length - 0.5 } else { 0.5 };
            approaches.push(format!("[{r}, {lane}, {s}, {}, {movements}]", j.id));
        }
        if !j.lights.is_empty() {
            groups.push(format!("[{}, {:?}]", j.id, j.lights));
        }
    }
    let (mut lights, mut speed, mut stops) = (Vec::new(), Vec::new(), Vec::new());
    for r in net.roads.iter().filter(|r| !r.signals.is_empty()) {
        for sig in &r.signals {
            let (x, y) = unreal_spot(r, sig.s, sig.t);
            let (id, s, lane) = (sig.id, sig.s, sig.lane);
            let item = format!("[{id}, {}, {lane}, {s}, {x}, {y}", r.id);
            match sig.kind {
                SignalKind::Light => lights.push(format!("{item}]")),
                SignalKind::SpeedLimit(v) => speed.push(format!("{item}, {v}]")),
                SignalKind::Stop => stops.push(format!("{item}]")),
            }
        }
    }
    let mut starts = Vec::new();
    for j in &net.junctions {
        for d in (0..4u8).filter(|&d| neighbour(j.node, d).is_some()) {
            // The lane centre 20 m past the node, Unreal frame.
            let (cx, cy) = centre_point(j.node, d, 20.0);
            let (hx, hy) = dir_vec(d);
            let (x, y) = (cx + hy * LANE_WIDTH / 2.0, -(cy - hx * LANE_WIDTH / 2.0));
            starts.push(format!("[{x}, {y}, {}]", 90 * d as u32));
        }
    }
    let nodes = net.junctions.iter().map(|j| {
        let (x, y) = (j.node.0 as f64 * SPACING, j.node.1 as f64 * SPACING);
        format!("[{}, {x}, {y}, {}]", j.id, j.connections.len())
    });
    let between: Vec<&Road> = net.roads.iter().filter(|r| r.junction.is_none()).collect();
    let connecting = net.roads.len() - between.len();
    let length: f64 = net
        .roads
        .iter()
        .map(|r| r.length * if r.junction.is_none() { 2.0 } else { 1.0 })
        .sum();
    let mut j = String::from("{\n");
    let _ = writeln!(j, "\"junctions\": {},", list(nodes));
    let _ = writeln!(j, "\"approaches\": {},", list(approaches));
    let _ = writeln!(j, "\"lights\": {},", list(lights));
    let _ = writeln!(j, "\"groups\": {},", list(groups));
    let _ = writeln!(j, "\"speed_signs\": {},", list(speed));
    let _ = writeln!(j, "\"stop_signs\": {},", list(stops));
    let _ = writeln!(j, "\"starts\": {},", list(starts));
    let _ = writeln!(j, "\"geo\": [{LATITUDE}, {LONGITUDE}],");
    let _ = writeln!(
        j,
        "\"lane_width\": {LANE_WIDTH}, \"sidewalk_width\": {SIDEWALK_WIDTH},"
    );
    // One segment into and one out of each connecting lane.
    let _ = writeln!(j, "\"topology_segments\": {},", 2 * connecting);
    let _ = writeln!(j, "\"driving_lanes\": {},", 2 * between.len() + connecting);
    let _ = writeln!(j, "\"driving_lane_length\": {length}\n}}");
    j
}

/// Runs tests/python/builtin_map_offline.py with the real `carla==0.9.16`
/// client on the map (CI sets CARLA_0916_PYTHON); skipped without it.
#[test]
fn carla_0916_client_reads_the_built_in_town() {
    let Some(python) = std::env::var_os("CARLA_0916_PYTHON") else {
        eprintln!("CARLA_0916_PYTHON is not set: skipped the carla==0.9.16 client check of the built-in town");
        return;
    };
    let dir = std::env::temp_dir().join(format!("carla-host-builtin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (xodr, expect) = (dir.join("town.xodr"), dir.join("expect.json"));
    std::fs::write(&xodr, town_xodr()).unwrap();
    std::fs::write(&expect, expectations()).unwrap();
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/builtin_map_offline.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(&xodr)
        .arg(&expect)
        .output()
        .expect("python starts");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{stdout}");
    assert!(
        out.status.success() && stdout.lines().last() == Some("OK") && stderr.trim().is_empty(),
        "the carla==0.9.16 client rejected the built-in town ({}):\n{stdout}\n{stderr}",
        out.status
    );
}
