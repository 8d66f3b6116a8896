use super::lanes::LaneKind;
use super::mouths::CROSSWALK_PIECES;
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
        carla_server::rpc::nav::build(&map.walkable).expect("a navigation mesh");
        let sizes = islands(&map.walkable);
        println!(
            "  walkable islands: {} (largest {} of {} polygons; {} of under 5); {} overlaps",
            sizes.len(),
            sizes[0],
            map.walkable.len(),
            sizes.iter().filter(|&&n| n < 5).count(),
            overlaps(&map.walkable).len()
        );
    }
}

/// Pairs of walkable polygons that overlap by more than a centimetre
/// (the client's navigation queries misbehave where two do).
fn overlaps(polygons: &[carla_server::rpc::nav::NavPolygon]) -> Vec<(usize, usize)> {
    let flat: Vec<Vec<(f32, f32)>> = polygons
        .iter()
        .map(|p| p.points.iter().map(|q| (q.x, q.y)).collect())
        .collect();
    let bounds: Vec<[f32; 4]> = flat
        .iter()
        .map(|p| {
            p.iter()
                .fold([f32::MAX, f32::MAX, f32::MIN, f32::MIN], |b, q| {
                    [b[0].min(q.0), b[1].min(q.1), b[2].max(q.0), b[3].max(q.1)]
                })
        })
        .collect();
    // Convex polygons overlap unless an edge normal of one separates them.
    let separated = |a: &[(f32, f32)], b: &[(f32, f32)]| {
        [a, b].iter().any(|p| {
            (0..p.len()).any(|i| {
                let (u, v) = (p[i], p[(i + 1) % p.len()]);
                let (nx, ny) = (v.1 - u.1, u.0 - v.0);
                let len = nx.hypot(ny).max(1e-9);
                let proj = |q: &(f32, f32)| (q.0 * nx + q.1 * ny) / len;
                let (alo, ahi) = a
                    .iter()
                    .map(proj)
                    .fold((f32::MAX, f32::MIN), |r, x| (r.0.min(x), r.1.max(x)));
                let (blo, bhi) = b
                    .iter()
                    .map(proj)
                    .fold((f32::MAX, f32::MIN), |r, x| (r.0.min(x), r.1.max(x)));
                ahi < blo + 0.01 || bhi < alo + 0.01
            })
        })
    };
    let mut out = Vec::new();
    for i in 0..flat.len() {
        for j in i + 1..flat.len() {
            let (a, b) = (bounds[i], bounds[j]);
            if a[0] > b[2] || b[0] > a[2] || a[1] > b[3] || b[1] > a[3] {
                continue;
            }
            if !separated(&flat[i], &flat[j]) {
                out.push((i, j));
            }
        }
    }
    out
}

/// Polygon counts of the walkable areas' islands (polygons sharing an
/// edge, as the navigation mesh joins them), largest first.
fn islands(polygons: &[carla_server::rpc::nav::NavPolygon]) -> Vec<usize> {
    use std::collections::HashMap;
    let key = |p: &carla_server::types::Vector3D| [p.x, p.y, p.z].map(|c| (c * 1e3).round() as i64);
    let mut parent: Vec<usize> = (0..polygons.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut edges: HashMap<([i64; 3], [i64; 3]), usize> = HashMap::new();
    for (i, p) in polygons.iter().enumerate() {
        let n = p.points.len();
        for k in 0..n {
            let (a, b) = (key(&p.points[k]), key(&p.points[(k + 1) % n]));
            let e = if a < b { (a, b) } else { (b, a) };
            if let Some(&j) = edges.get(&e) {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri] = rj;
            } else {
                edges.insert(e, i);
            }
        }
    }
    let mut sizes: HashMap<usize, usize> = HashMap::new();
    for i in 0..polygons.len() {
        *sizes.entry(root(&mut parent, i)).or_default() += 1;
    }
    let mut v: Vec<usize> = sizes.into_values().collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

#[test]
fn walkers_reach_every_sidewalk_of_the_builtin_town() {
    let text: Arc<str> = builtin::town_xodr().into();
    let map = Map::load("x", text, Options::default()).unwrap();
    // One island: the crosswalks join the blocks' sidewalks (Detour joins
    // polygons that share an edge, so a crosswalk's sides must be whole
    // strip quads' edges).
    assert_eq!(islands(&map.walkable), vec![map.walkable.len()]);
    assert_eq!(overlaps(&map.walkable), vec![]);
}

#[test]
fn the_builtin_towns_junctions_have_sidewalk_corners_floors_and_crosswalks() {
    let text: Arc<str> = builtin::town_xodr().into();
    let map = Map::load("x", text, Options::default()).unwrap();
    let m = &map.mouths;
    // A crosswalk at each of the 80 road ends (40 roads, both ends) and a
    // floor under each of the 25 junctions. The junctions' corners are
    // sidewalk lanes of their connecting roads (4 at each of the 9
    // crossings, 3 at each of the 12 T-junctions: two round the corners,
    // one along the closed side; 2 at each of the 4 bends of the town), so
    // no corner of ours lies over them.
    assert_eq!(m.crosswalks.len(), 80);
    assert_eq!(m.crosswalk_pieces.len(), 80 * CROSSWALK_PIECES);
    let junction_sidewalks = (map.lanes.lanes.iter().enumerate())
        .filter(|(i, l)| l.kind == LaneKind::Sidewalk && map.lanes.in_junction(*i as _))
        .count();
    assert_eq!(junction_sidewalks, 9 * 4 + 12 * 3 + 4 * 2);
    assert_eq!(m.corners.len(), 0);
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
            .filter(|p| p.area == carla_server::rpc::nav::NavArea::Sidewalk)
            .count()
            + 80 * CROSSWALK_PIECES
    );
    carla_server::rpc::nav::build(&map.walkable).expect("a navigation mesh");
}

/// A road of lane -1 (3.5 m wide) whose `<laneOffset>` goes from 0 to
/// 3.5 m at s = 10, with lane sections starting at `sections`.
fn shifting_road(sections: &[&str]) -> Map {
    let section = |s: &&str| {
        format!(
            r#"<laneSection s="{s}"><center><lane id="0" type="none"/></center>
<right><lane id="-1" type="driving"><link><predecessor id="-1"/><successor id="-1"/></link>
<width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection>"#
        )
    };
    let sections: String = sections.iter().map(section).collect();
    let text = format!(
        r#"<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4"/><road id="1" length="20" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="20"><line/></geometry></planView>
<lanes><laneOffset s="0" a="0" b="0" c="0" d="0"/><laneOffset s="10" a="3.5" b="0" c="0" d="0"/>
{sections}</lanes></road></OpenDRIVE>"#
    );
    Map::load("x", text.into(), Options::default()).unwrap()
}

fn lane_of(map: &Map, section: u32) -> &super::lanes::Lane {
    map.lanes
        .lanes
        .iter()
        .find(|l| l.section == section && l.od_lane == -1)
        .expect("the section's lane")
}

/// Where a road's `<laneOffset>` changes at a lane section's start, the
/// lanes of the section before end on their own offset, as the client's
/// map has them (the xodr crate took their last sample with the next
/// record: a 3.5 m sideways jump in CARLA's Town05, road 927).
#[test]
fn a_lane_ends_on_its_own_offset_where_the_next_section_shifts() {
    let map = shifting_road(&["0", "10"]);
    let first = lane_of(&map, 0);
    // CARLA's y is OpenDRIVE's mirrored: lane -1 on offset 0 is at y 1.75.
    for p in &first.points {
        assert!((p[1] - 1.75).abs() < 1e-3, "{:?}", first.points);
    }
    assert!((first.length() - 10.0).abs() < 0.01, "{}", first.length());
    let second = lane_of(&map, 1);
    assert!(
        (second.points[0][1] + 1.75).abs() < 1e-3,
        "{:?}",
        second.points
    );
}

/// The same where the section before the shift is 2 cm long, a lane of
/// one step with no step before it of its own (Town05's road 413).
#[test]
fn a_one_step_lane_ends_on_its_own_offset_too() {
    let map = shifting_road(&["0", "9.98", "10"]);
    let short = lane_of(&map, 1);
    assert_eq!(short.points.len(), 2, "{:?}", short.points);
    for p in &short.points {
        assert!((p[1] - 1.75).abs() < 1e-3, "{:?}", short.points);
    }
    assert!((short.length() - 0.02).abs() < 1e-3, "{}", short.length());
}

/// On a curve, a one-step lane's end mended from its own section: a
/// 20 m-radius arc whose offset shifts at s = 10 after a 1 m section
/// (CARLA's Town03, junction road 733). Carried on straight from the lane
/// before it, its end missed the client's by 2.5 cm.
#[test]
fn a_one_step_lane_on_a_curve_ends_on_the_curve() {
    let text = r#"<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4"/><road id="1" length="20" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="20"><arc curvature="0.05"/></geometry></planView>
<lanes><laneOffset s="0" a="0" b="0" c="0" d="0"/><laneOffset s="10" a="3.5" b="0" c="0" d="0"/>
<laneSection s="0"><center><lane id="0" type="none"/></center><right><lane id="-1" type="driving">
<link><successor id="-1"/></link><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection>
<laneSection s="9"><center><lane id="0" type="none"/></center><right><lane id="-1" type="driving">
<link><predecessor id="-1"/><successor id="-1"/></link><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection>
<laneSection s="10"><center><lane id="0" type="none"/></center><right><lane id="-1" type="driving">
<link><predecessor id="-1"/></link><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right></laneSection>
</lanes></road></OpenDRIVE>"#;
    let map = Map::load("x", text.into(), Options::default()).unwrap();
    // Lane -1's centre runs 1.75 m outside the arc: radius 21.75 about
    // (0, 20) in OpenDRIVE, whose y CARLA mirrors.
    let on_curve = |s: f32| {
        let a = s / 20.0;
        [21.75 * a.sin(), -(20.0 - 21.75 * a.cos())]
    };
    let short = lane_of(&map, 1);
    let end = short.points[short.points.len() - 1];
    let want = on_curve(10.0);
    let off = (end[0] - want[0]).hypot(end[1] - want[1]);
    assert!(off < 2e-3, "{off} m off: {:?} vs {want:?}", short.points);
    let before = lane_of(&map, 0);
    let want = on_curve(9.0);
    let last = before.points[before.points.len() - 1];
    assert!((last[0] - want[0]).hypot(last[1] - want[1]) < 2e-3);
}

/// Over a crest, heights between a lane's samples follow the road's
/// elevation, not the chord between them: the xodr crate samples a
/// straight road only where its profile needs it (CARLA's Town03, road 49:
/// the world's cars rode 2.6 cm above the client's lane there).
#[test]
fn a_lane_over_a_crest_is_as_high_as_the_road_between_samples() {
    let text = r#"<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4"/><road id="1" length="100" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="100"><line/></geometry></planView>
<elevationProfile><elevation s="0" a="0" b="0.2" c="-0.004" d="0"/></elevationProfile>
<lanes><laneSection s="0"><center><lane id="0" type="none"/></center><right>
<lane id="-1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right>
</laneSection></lanes></road></OpenDRIVE>"#;
    let map = Map::load("x", text.into(), Options::default()).unwrap();
    let lane = lane_of(&map, 0);
    let road = |x: f32| 0.2 * x - 0.004 * x * x;
    let mut worst = 0.0f32;
    let mut d = 0.0;
    while d < lane.length() {
        let p = lane.pose(d).position;
        worst = worst.max((p[2] - road(p[0])).abs());
        d += 0.25;
    }
    assert!(worst < 1e-3, "{worst} m off the road's height");
}
