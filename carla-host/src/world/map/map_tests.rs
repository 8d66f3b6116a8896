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
    // A crosswalk at each of the 80 road ends (40 roads, both ends); a
    // corner between each two neighbouring arms: 4 at each of the 9
    // crossings, 3 at each of the 12 T-junctions (two round the corners,
    // one along the straight side), 1 at each of the 4 corners of the
    // town; a floor under each of the 25 junctions.
    assert_eq!(m.crosswalks.len(), 80);
    assert_eq!(m.corners.len(), 9 * 4 + 12 * 3 + 4);
    assert_eq!(m.floors.len(), 25);
    let lanes = &map.lanes;
    for c in &m.corners {
        // At the sidewalks' height, off every driving lane.
        assert!(c.iter().all(|p| (p[2] - CURB_HEIGHT).abs() < 1e-4), "{c:?}");
        let n = c.len() as f32;
        let (x, y) = (
            c.iter().map(|p| p[0]).sum::<f32>() / n,
            c.iter().map(|p| p[1]).sum::<f32>() / n,
        );
        let on = lanes.at(x, y, 0.0, 1.0);
        assert!(
            on.is_none_or(|o| !lanes.lane(o.lane).kind.is_driving()),
            "{c:?}"
        );
    }
    // The walkers' mesh holds them all, and builds.
    assert_eq!(
        map.walkable.len(),
        map.walkable
            .iter()
            .filter(|p| p.area == carla_server::nav::NavArea::Sidewalk)
            .count()
            + 80
    );
    carla_server::nav::build(&map.walkable).expect("a navigation mesh");
}
