//! `carla-host --bench-physics TICKS [MAP.xodr]` (hidden): times the
//! physics of clients' vehicles and walkers. On a map (the built-in town
//! by default) it puts 100 client vehicles on the lanes, on the server's
//! autopilot, and 50 client walkers on the sidewalks, each walking along
//! its sidewalk as a character, and runs TICKS synchronous ticks of
//! 0.05 s; then the same world without them (the baseline, same run).
//! Prints ms per tick (p50, p99) for the whole world step and for the
//! physics alone (the rigid-body step, substeps included, and the
//! walkers' character moves; the target is under 2 ms), and how many
//! vehicles stayed on a driving lane. `benches/world.rs` runs it.

use crate::world::simulation::vehicle::pose_transform;
use crate::world::{Town, World, WorldConfig};
use carla_server::types::{Control, Vector3D};
use std::sync::Arc;
use std::time::{Duration, Instant};

const VEHICLES: u32 = 100;
const WALKERS: u32 = 50;
const DT: f32 = 0.05;

/// Runs the benchmark and exits if the arguments ask for it.
pub(crate) fn run_if_asked() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("--bench-physics") {
        return;
    }
    let town = crate::bench_render::bench_town(args.get(2));
    match (args.get(1).map(|n| n.parse::<usize>()), town) {
        (Some(Ok(ticks)), Ok(town)) if ticks > 0 => {
            run(ticks, &town);
            std::process::exit(0);
        }
        (_, Err(e)) => {
            eprintln!("--bench-physics: {e}");
            std::process::exit(2);
        }
        _ => {
            eprintln!("usage: carla-host --bench-physics TICKS [MAP.xodr]");
            std::process::exit(2);
        }
    }
}

/// The world with `vehicles` client vehicles on the autopilot and
/// `walkers` client walkers walking along the sidewalks.
fn world(town: &Arc<Town>, vehicles: u32, walkers: u32) -> (World, u32) {
    let config = WorldConfig {
        vehicles: 0,
        pedestrians: 0,
        ..WorldConfig::default()
    };
    let mut w = World::town(town, &config);
    let extent = Vector3D {
        x: 2.3,
        y: 1.0,
        z: 0.75,
    };
    let mut placed = 0;
    for (i, &(lane, d)) in town.ways.slots.iter().enumerate() {
        if placed >= vehicles {
            break;
        }
        let p = town.map.lanes.lane(lane).pose(d);
        let [x, y, z] = p.position;
        let t = pose_transform(x, y, z + 0.3, p.yaw, 0.0, 0.0);
        let id = 100_000 + i as u32;
        if w.spawn_car(
            id,
            &t,
            [200, 30, 30],
            (
                extent,
                0.0,
                &carla_server::rpc::VehiclePhysicsControl::default_for(extent, 4),
            ),
        )
        .is_ok()
        {
            if let Some(d) = w.driven_mut(id) {
                d.modes.autopilot = true;
            }
            placed += 1;
        }
    }
    let paths = &town.paths.lanes;
    for i in 0..walkers.min(paths.len() as u32 * 4) {
        let lane = town.map.lanes.lane(paths[(i as usize * 7) % paths.len()]);
        let p = lane.pose(lane.length() * (0.1 + 0.2 * (i % 4) as f32));
        let [x, y, z] = p.position;
        let t = pose_transform(x, y, z + 1.0, p.yaw, 0.0, 0.0);
        let id = 200_000 + i;
        if w.spawn_walker(id, &t).is_ok() {
            if let Some(walker) = w.walker_mut(id) {
                walker.control = Some((p.yaw.cos(), p.yaw.sin(), 1.4));
            }
        }
    }
    (w, placed)
}

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    (at(0.5), at(0.99))
}

fn run(ticks: usize, town: &Arc<Town>) {
    let (mut busy, placed) = world(town, VEHICLES, WALKERS);
    let (mut quiet, _) = world(town, 0, 0);
    let mut whole = Vec::with_capacity(ticks);
    let mut physics = Vec::with_capacity(ticks);
    let mut base = Vec::with_capacity(ticks);
    for _ in 0..ticks {
        let spent = busy.physics_mut().spent;
        let t = Instant::now();
        busy.step(&Control::default(), DT);
        whole.push(t.elapsed());
        physics.push(busy.physics_mut().spent - spent);
        let t = Instant::now();
        quiet.step(&Control::default(), DT);
        base.push(t.elapsed());
    }
    let lanes = &town.map.lanes;
    let on_lane = busy
        .fleet()
        .iter()
        .filter(|d| {
            lanes
                .driving_at(d.car.x, d.car.y, d.car.z, d.car.yaw, 1.0)
                .is_some()
        })
        .count();
    let (w50, w99) = stats(whole);
    let (p50, p99) = stats(physics);
    let (b50, b99) = stats(base);
    println!(
        "physics on {}: {placed} client vehicles (autopilot) + {} client walkers, {ticks} ticks of {DT} s",
        town.map.name,
        busy.walkers().len()
    );
    println!("  world step       p50 {w50:.3} ms  p99 {w99:.3} ms");
    println!("  physics          p50 {p50:.3} ms  p99 {p99:.3} ms  (target < 2 ms)");
    let walked = busy.physics_mut().walked.as_secs_f64() * 1000.0 / ticks as f64;
    println!("    of which the walkers' moves: {walked:.3} ms a tick on average");
    println!("  baseline (no client actors): world step p50 {b50:.3} ms  p99 {b99:.3} ms");
    println!("  on a driving lane at the end: {on_lane} of {placed}");
}
