use super::*;
use std::time::Instant;

/// CARLA's towns, by hand: `CARLA_TOWNS=dir cargo test -p carla-host
/// --release --lib map::tests::carla_towns -- --ignored --nocapture`.
#[test]
#[ignore]
fn carla_towns() {
    let Ok(dir) = std::env::var("CARLA_TOWNS") else {
        return;
    };
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xodr"))
        .collect();
    names.sort();
    for path in names {
        let text: Arc<str> = std::fs::read_to_string(&path).unwrap().into();
        let t = Instant::now();
        let map = Map::load("x", text, Options::default()).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let lights = map.signs.lights().count();
        println!(
            "{}: {:.0} ms, {} lanes, {} driving, {} junctions, {} marks, {} lights in {} groups, {} signs, {} spawn points, {} walkable, {} warnings",
            path.display(),
            ms,
            map.lanes.lanes.len(),
            map.lanes.driving().count(),
            map.lanes.junctions.len(),
            map.marks.len(),
            lights,
            map.signs.groups.len(),
            map.signs.signs.len() - lights,
            map.spawn_points.len(),
            map.walkable.len(),
            map.warnings.len()
        );
        carla_server::nav::build(&map.walkable).expect("a navigation mesh");
    }
}

#[test]
fn the_builtin_towns_junctions_have_corners_floors_and_crosswalks() {
    let text: Arc<str> = builtin::town_xodr().into();
    let map = Map::load("x", text, Options::default()).unwrap();
    let m = &map.mouths;
    println!(
        "{} crosswalks, {} corners, {} floors",
        m.crosswalks.len(),
        m.corners.len(),
        m.floors.len()
    );
    for c in m.corners.iter().take(3) {
        println!("{c:?}");
    }
}
