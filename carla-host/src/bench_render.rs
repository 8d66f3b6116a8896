//! `carla-host --bench-render FRAMES [MAP.xodr]` (hidden): times the camera
//! of the demo world. For a few 800x600, FOV 90 views of a map (the
//! built-in town by default; 20 vehicles, 30 pedestrians, traffic moving
//! between frames) it renders
//! FRAMES frames with the rasterizer (G-buffer, then the rgb output) and
//! FRAMES with the ray caster it replaced (the baseline, same run), and
//! prints ms per camera (p50 and mean) for each, then the time to write
//! each output from a G-buffer. `benches/world.rs` runs it first.

use crate::world::map::lanes::LaneKind;
use crate::world::map::Options;
use crate::world::rendering::gbuffer::{Channels, GBuffer, Output};
use crate::world::rendering::motion::{Motion, Reprojection};
use crate::world::rendering::optics::Optics;
use crate::world::rendering::render::{CameraPose, CameraSpec, PostProcessing};
use crate::world::rendering::{raster, raycast, shadow};
use crate::world::sensing::lidar::{legacy_lidar_settings, Mount};
use crate::world::simulation::vehicle::pose_transform;
use crate::world::{workers, Town, World, WorldConfig};
use carla_server::sensor::{Lidar, LidarSettings};
use carla_server::types::{Control, Rotation3D, Transform, Vector3D};
use std::sync::Arc;
use std::time::Instant;

const W: u32 = 800;
const H: u32 = 600;
/// The large camera's size.
const FHD: (u32, u32) = (1920, 1080);

/// Runs the benchmark and exits if the arguments ask for it:
/// `--bench-render FRAMES [MAP.xodr]` (the built-in town by default).
pub(crate) fn run_if_asked() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("--bench-render") {
        return;
    }
    let started = Instant::now();
    let town = bench_town(args.get(2));
    if let Ok(town) = &town {
        // What loading a map costs the server: the town (parse, lane
        // graph, meshes, scene, spawn points) and the walkers' file.
        let nav = carla_server::rpc::nav::build(&town.map.walkable).map_or(0, |f| f.len());
        println!(
            "map {}: loaded in {:.0} ms with its navigation mesh ({nav} bytes); peak RSS {}",
            town.map.name,
            started.elapsed().as_secs_f64() * 1000.0,
            peak_rss()
        );
    }
    match (args.get(1).map(|n| n.parse::<usize>()), town) {
        (Some(Ok(frames)), Ok(town)) if frames > 0 => {
            run(frames, &town);
            std::process::exit(0);
        }
        (_, Err(e)) => {
            eprintln!("carla-host: --bench-render: {e}");
            std::process::exit(2);
        }
        _ => {
            eprintln!("carla-host: --bench-render needs a number of frames");
            std::process::exit(2);
        }
    }
}

/// The town a benchmark runs on: the map file at `path` (named by its
/// stem), or the built-in town.
pub(crate) fn bench_town(path: Option<&String>) -> Result<Arc<Town>, String> {
    let Some(path) = path else {
        return Ok(Town::builtin());
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let name = std::path::Path::new(path)
        .file_stem()
        .map_or("map".into(), |s| s.to_string_lossy().into_owned());
    Town::load(&name, text.into(), Options::default())
}

/// The process's peak resident memory, as Linux counts it.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!("{:.0} MB", kb / 1024.0))
        })
        .unwrap_or_else(|| "unknown".into())
}

fn camera(x: f32, z: f32, pitch: f32, yaw: f32) -> CameraSpec {
    CameraSpec {
        width: W,
        height: H,
        fov_deg: 90.0,
        post: PostProcessing::SceneFinal,
        position: Vector3D { x, y: 0.0, z },
        rotation: Rotation3D {
            pitch,
            yaw,
            roll: 0.0,
        },
    }
}

/// A named view: a camera on a base transform (`None`: the player's car).
type View = (&'static str, Option<Transform>, CameraSpec);

/// Four views of `town`: from the player's car, from the middle of a
/// junction, from a sidewalk, and from 30 m above the traffic.
fn views(town: &Town) -> [View; 4] {
    let map = &town.map;
    let level = |p: [f32; 3], yaw: f32| pose_transform(p[0], p[1], p[2], yaw, 0.0, 0.0);
    let junction = map
        .lanes
        .junctions
        .iter()
        .max_by_key(|j| j.lanes.len())
        .map_or([0.0; 3], |j| j.centre);
    let walk = map
        .lanes
        .lanes
        .iter()
        .find(|l| l.kind == LaneKind::Sidewalk)
        .or_else(|| map.lanes.lanes.first())
        .map(|l| l.pose(l.length() / 2.0));
    let (walk_at, walk_yaw) = walk.map_or(([0.0; 3], 0.0), |p| (p.position, p.yaw));
    let above = map
        .spawn_points
        .get(map.spawn_points.len() / 2)
        .copied()
        .unwrap_or_default();
    [
        ("street (player's car)", None, camera(0.3, 1.3, 0.0, 0.0)),
        (
            "junction",
            Some(level(junction, 0.8)),
            camera(0.0, 1.6, 0.0, 0.0),
        ),
        (
            "sidewalk",
            Some(level(walk_at, walk_yaw)),
            camera(0.0, 1.9, 0.0, 0.0),
        ),
        (
            "above traffic, 30 m",
            Some(above),
            camera(-20.0, 30.0, -35.0, 0.0),
        ),
    ]
}

/// With `CARLA_HOST_BENCH_IMAGES=DIR`, writes a view's first image
/// there as a PPM file (to look at what is timed).
fn dump(name: &str, bgra: &[u8]) {
    let Ok(dir) = std::env::var("CARLA_HOST_BENCH_IMAGES") else {
        return;
    };
    let mut ppm = format!("P6\n{W} {H}\n255\n").into_bytes();
    for px in bgra.chunks_exact(4) {
        ppm.extend_from_slice(&[px[2], px[1], px[0]]);
    }
    let file =
        std::path::Path::new(&dir).join(format!("{}.ppm", name.replace([' ', '(', ')', ','], "_")));
    if let Err(e) = std::fs::write(&file, ppm) {
        eprintln!("{}: {e}", file.display());
    }
}

/// (p50, mean) of `ms`, sorted in place.
fn stats(ms: &mut [f64]) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms.iter().sum::<f64>() / ms.len() as f64)
}

/// The least of `ms` (the least disturbed by other work on the machine).
fn least(ms: &[f64]) -> f64 {
    ms.iter().copied().fold(f64::INFINITY, f64::min)
}

fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1000.0
}

fn run(frames: usize, town: &Arc<Town>) {
    let config = WorldConfig {
        vehicles: 20,
        pedestrians: 30,
        ..WorldConfig::default()
    };
    println!(
        "bench-render: {W}x{H} FOV 90, {frames} frames per view and method, {} threads, \
         map {} ({} triangles, {} boxes) with 20 vehicles and 30 pedestrians",
        crate::world::workers::threads(),
        town.map.name,
        town.fixed.tris().len(),
        town.fixed.static_bounds().len()
    );
    let mut out = vec![0u8; (W * H * 4) as usize];
    let mut g = GBuffer::new();
    let (mut all_raster, mut all_rays, mut best) = (Vec::new(), Vec::new(), Vec::new());
    let outputs = [
        ("rgb", Output::Rgb),
        ("depth", Output::Depth),
        ("semantic 0.8", Output::Semantic08),
        ("semantic 0.9.16", Output::Semantic0916),
        ("instance 0.9.16", Output::Instance0916),
    ];
    let mut writes = vec![Vec::new(); outputs.len()];
    let (mut all_planes, mut tags_only) = (Vec::new(), Vec::new());
    let (mut fresh, mut kept, mut as_tris) = (Vec::new(), Vec::new(), Vec::new());
    let (mut with_shadows, mut no_shadows) = (Vec::new(), Vec::new());
    let (mut smoothing, mut lensing, mut blurring) = (Vec::new(), Vec::new(), Vec::new());
    let mut smooth = Optics::of(true, |_, d| d).expect("edges smoothed by default");
    let lens_attributes = |k: &str, d: f32| match k {
        "lens_k" => -2.0,
        "lens_circle_multiplier" => 1.0,
        "chromatic_aberration_intensity" => 1.0,
        _ => d,
    };
    let mut lens = Optics::of(true, lens_attributes).expect("a lens");
    let (mut full_hd, mut big) = (Vec::new(), vec![0u8; FHD.0 as usize * FHD.1 as usize * 4]);
    let views_first = views(town)[0].0;
    for (name, base, cam) in views(town) {
        let mut world = World::new(town, &config, 0);
        let drive = Control {
            throttle: 0.5,
            ..Default::default()
        };
        let (mut raster, mut rays, mut gbuf) = (Vec::new(), Vec::new(), Vec::new());
        let mut before: Option<CameraPose> = None;
        for i in 0..2 * frames {
            world.step(&drive, 1.0 / 30.0);
            let base = base.unwrap_or_else(|| world.player_transform());
            if i < frames {
                let pose = CameraPose::on_player(&cam, &base);
                // A moving camera with CARLA's default motion blur: the
                // depth plane too, and the smear (the views on the
                // player's car move; the others stand still).
                let still = |_: u32| None;
                let motion = Motion {
                    now: pose,
                    before: before.replace(pose).unwrap_or(pose),
                    fov_deg: cam.fov_deg,
                    moved: &still,
                };
                if let Some(r) = Reprojection::of(&motion, W as usize, H as usize) {
                    let mut planes = Channels::of(Output::Rgb);
                    planes.depth = true;
                    g.fill_only(planes);
                    blurring.push(time(|| {
                        world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g);
                        g.write(Output::Rgb, &mut out);
                        smooth.blur_motion(&mut out, (W as usize, 0, H as usize), g.depth(), &r);
                        smooth.apply(&mut out, W as usize, H as usize, true);
                    }));
                }
                // An RGB camera: the colour plane alone, as the server
                // renders one.
                g.fill_only(Channels::of(Output::Rgb));
                let t = Instant::now();
                world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g);
                let t_g = t.elapsed().as_secs_f64() * 1000.0;
                g.write(Output::Rgb, &mut out);
                raster.push(t.elapsed().as_secs_f64() * 1000.0);
                if i == 0 {
                    dump(name, &out);
                }
                gbuf.push(t_g);
                // The same camera on threads made for each frame (as
                // before the kept pool): the pool's same-run baseline.
                workers::keep_threads(false);
                fresh.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g)
                }));
                workers::keep_threads(true);
                kept.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g)
                }));
                // The same camera drawing each paired triangle alone (as
                // before quads): the quads' same-run baseline.
                raster::draw_quads(false);
                as_tris.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g)
                }));
                raster::draw_quads(true);
                // The RGB camera without the sun's shadows
                // (`--quality-level low`): their same-run baseline.
                g.fill_only(Channels::of(Output::Rgb));
                shadow::cast_shadows(false);
                no_shadows.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g);
                    g.write(Output::Rgb, &mut out);
                }));
                shadow::cast_shadows(true);
                with_shadows.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g);
                    g.write(Output::Rgb, &mut out);
                }));
                // CARLA's default post-processing (edges smoothed), and
                // the lens's optional effects on top.
                smoothing.push(time(|| {
                    smooth.apply(&mut out, W as usize, H as usize, true)
                }));
                lensing.push(time(|| lens.apply(&mut out, W as usize, H as usize, true)));
                // A 1920x1080 RGB camera with everything on, rendered
                // in stripes as the server does (the first view only).
                if name == views_first {
                    full_hd.push(time(|| {
                        world.render_stripes(&pose, FHD.0, FHD.1, cam.fov_deg, &mut g, |g| {
                            g.write(Output::Rgb, g.rows_of(&mut big));
                        });
                        smooth.apply(&mut big, FHD.0 as usize, FHD.1 as usize, true);
                    }));
                }
                // A semantic camera: the tags alone, no shading.
                g.fill_only(Channels::of(Output::Semantic0916));
                tags_only.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g)
                }));
                // Every plane, for the outputs' write times (and what every
                // camera cost before it named its planes).
                g.fill_only(Channels::ALL);
                all_planes.push(time(|| {
                    world.render_gbuffer(&pose, W, H, cam.fov_deg, &mut g)
                }));
                for (k, &(_, o)) in outputs.iter().enumerate() {
                    writes[k].push(time(|| g.write(o, &mut out)));
                }
            } else if std::env::var_os("CARLA_HOST_BENCH_NO_RAYS").is_none() {
                let scene = world.scene();
                rays.push(time(|| raycast::render(scene, &cam, &base, &mut out)));
            } else {
                rays.push(f64::NAN);
            }
        }
        best.push(least(&raster));
        all_raster.extend_from_slice(&raster);
        all_rays.extend_from_slice(&rays);
        let ((r50, rmean), (g50, gmean)) = (stats(&mut raster), stats(&mut gbuf));
        let (c50, cmean) = stats(&mut rays);
        println!(
            "  {name:<24} raster (G-buffer + rgb) p50 {r50:6.2} ms mean {rmean:6.2} ms \
             (G-buffer alone p50 {g50:6.2}, mean {gmean:6.2})   ray caster p50 {c50:6.2} ms mean {cmean:6.2} ms"
        );
    }
    let ((r50, rmean), (c50, cmean)) = (stats(&mut all_raster), stats(&mut all_rays));
    println!(
        "  all views: raster p50 {r50:.2} ms mean {rmean:.2} ms per camera (best frame of \
         each view, averaged: {:.2} ms); ray caster p50 {c50:.2} ms mean {cmean:.2} ms ({:.1}x)",
        best.iter().sum::<f64>() / best.len() as f64,
        cmean / rmean
    );
    let ((f50, fmean), (k50, kmean)) = (stats(&mut fresh), stats(&mut kept));
    println!(
        "  G-buffer of the RGB camera on kept worker threads: p50 {k50:.2} ms mean {kmean:.2} ms; \
         on threads made for each frame: p50 {f50:.2} ms mean {fmean:.2} ms ({:.2}x)",
        fmean / kmean
    );
    let (q50, qmean) = stats(&mut as_tris);
    println!(
        "  the same, paired triangles drawn as two: p50 {q50:.2} ms mean {qmean:.2} ms \
         ({:.2}x the quads' time)",
        qmean / kmean
    );
    let ((s50, smean), (n50, nmean)) = (stats(&mut with_shadows), stats(&mut no_shadows));
    println!(
        "  the RGB camera with the sun's shadows: p50 {s50:.2} ms mean {smean:.2} ms; without \
         (--quality-level low): p50 {n50:.2} ms mean {nmean:.2} ms ({:.2}x)",
        smean / nmean
    );
    let ((p50, pmean), (l50, lmean)) = (stats(&mut smoothing), stats(&mut lensing));
    println!(
        "  the RGB camera's default post-processing (edges smoothed): p50 {p50:.2} ms mean \
         {pmean:.2} ms; with lens_k -2, the lens circle and chromatic aberration too: p50 \
         {l50:.2} ms mean {lmean:.2} ms"
    );
    let (b50, bmean) = stats(&mut blurring);
    println!(
        "  the RGB camera on the moving car with CARLA's defaults (shadows, motion blur, \
         smoothed edges): p50 {b50:.2} ms mean {bmean:.2} ms"
    );
    let (h50, hmean) = stats(&mut full_hd);
    println!(
        "  a 1920x1080 RGB camera (shadows, smoothed edges, in stripes), {views_first}: p50 \
         {h50:.2} ms mean {hmean:.2} ms"
    );
    let ((a50, amean), (t50, tmean)) = (stats(&mut all_planes), stats(&mut tags_only));
    println!(
        "  G-buffer of every plane (depth, tags, ids, normals, colour): p50 {a50:.2} ms \
         mean {amean:.2} ms; of the tags alone (a semantic camera): p50 {t50:.2} ms mean \
         {tmean:.2} ms ({:.2}x faster)",
        amean / tmean
    );
    let line: Vec<String> = outputs
        .iter()
        .zip(writes.iter_mut())
        .map(|((name, _), ms)| {
            let (p50, mean) = stats(ms);
            format!("{name} {p50:.3}/{mean:.3}")
        })
        .collect();
    println!(
        "  writing an output from the G-buffer, ms p50/mean: {}",
        line.join(", ")
    );
    lidar(frames, town, &config);
}

/// A lidar as CARLA's default (32 channels, 56 000 points/s, 10 Hz
/// rotation, +10° to −30°) with a 50 m range, 2.4 m up on the player's car,
/// ticked at 20 Hz (2 800 rays a tick): ms per tick (traced, then the 0.9
/// payload), the player driving.
fn lidar(frames: usize, town: &Arc<Town>, config: &WorldConfig) {
    let settings = LidarSettings {
        channels: 32,
        range_m: 50.0,
        points_per_second: 56_000,
        rotation_frequency: 10.0,
        upper_fov: 10.0,
        lower_fov: -30.0,
        ..legacy_lidar_settings(32, 50.0, 56_000, 10.0, 10.0, -30.0)
    };
    let Ok(mut lidar) = Lidar::new(settings) else {
        return;
    };
    let mount = Mount {
        position: Vector3D {
            x: 0.0,
            y: 0.0,
            z: 2.4,
        },
        ..Default::default()
    };
    let mut world = World::new(town, config, 0);
    let drive = Control {
        throttle: 0.5,
        ..Default::default()
    };
    let (mut hits, mut payload, mut ms, mut rays) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let (mut fresh, mut kept) = (Vec::new(), Vec::new());
    for _ in 0..frames * 4 {
        world.step(&drive, 0.05);
        let t = Instant::now();
        let plan = lidar.plan(0.05);
        rays = plan.ray_count();
        let (planned, range) = (plan.rays().to_vec(), plan.range_m());
        world.trace_lidar(&mount, &planned, range, &mut hits);
        let _ = lidar.process(&hits, &mut payload);
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
        // The trace alone again, on threads made for it (before the kept
        // pool) and on the kept ones: the pool's same-run baseline.
        workers::keep_threads(false);
        fresh.push(time(|| {
            world.trace_lidar(&mount, &planned, range, &mut hits)
        }));
        workers::keep_threads(true);
        kept.push(time(|| {
            world.trace_lidar(&mount, &planned, range, &mut hits)
        }));
    }
    let best = least(&ms);
    let (p50, mean) = stats(&mut ms);
    let ((f50, fmean), (k50, kmean)) = (stats(&mut fresh), stats(&mut kept));
    println!(
        "  lidar 32ch 56k points/s, 50 m, 20 Hz ({rays} rays a tick): p50 {p50:.3} ms mean \
         {mean:.3} ms best {best:.3} ms per tick; its trace alone on kept threads p50 \
         {k50:.3} ms mean {kmean:.3} ms, on threads made for it p50 {f50:.3} ms mean \
         {fmean:.3} ms ({:.2}x)",
        fmean / kmean
    );
}
