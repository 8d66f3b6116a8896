//! Tests of the town's layout: ground classes and traffic lights.

use super::*;

#[test]
fn ground_classes() {
    assert_eq!(surface(30.0, 1.0).ground, Ground::Road);
    assert_eq!(surface(30.0, 1.0).lane, Some(0));
    assert_eq!(surface(30.0, -1.0).lane, Some(2));
    assert_eq!(surface(-1.0, 30.0).lane, Some(1));
    assert_eq!(surface(1.0, 30.0).lane, Some(3));
    assert_eq!(surface(1.0, 1.0).lane, None, "junction");
    assert_eq!(surface(31.0, 0.0).ground, Ground::LaneMark);
    assert_eq!(surface(34.0, 0.0).ground, Ground::Road, "gap of the dashes");
    assert_eq!(surface(30.0, 5.0).ground, Ground::Sidewalk);
    assert_eq!(surface(30.0, 30.0).ground, Ground::Grass);
    assert_eq!(surface(-20.0, 30.0).ground, Ground::Grass);
}

#[test]
fn the_branch_free_ground_index_classifies_like_surface() {
    let index = |g| {
        [
            Ground::Road,
            Ground::LaneMark,
            Ground::Sidewalk,
            Ground::Grass,
        ]
        .iter()
        .position(|&h| h == g)
        .unwrap() as u32
    };
    let mut rng = crate::world::math::Rng::new(8);
    let lines = [
        0.0, 1.75, 3.2, 3.35, 3.5, 5.0, 6.5, 30.0, 60.0, 63.4, 240.0, 243.5,
    ];
    let mut points: Vec<(f32, f32)> = Vec::new();
    for &c in &lines {
        for i in 0..40_000 {
            let t = -40.0 + i as f32 * 0.008;
            points.extend([(t, c), (c, t), (t, -c), (-c, t)]);
        }
    }
    points.extend((0..200_000).map(|_| (rng.range(-40.0, 290.0), rng.range(-40.0, 290.0))));
    let mut classes = [0; 4];
    for (x, y) in points {
        let want = index(surface(x, y).ground);
        assert_eq!(ground_index(x, y), want, "({x}, {y})");
        classes[want as usize] += 1;
    }
    assert!(classes.iter().all(|&n| n > 1000), "{classes:?}");
}

#[test]
fn each_approach_of_a_junction_has_its_turn() {
    // A crossing (4 approaches) and a junction on the edge (3).
    for (node, approaches) in [((1, 2), 4usize), ((0, 2), 3)] {
        let mut greens = [0u32; 4];
        for t in 0..(10 * 14 * approaches as u32) {
            let t = t as f32 * 0.1;
            let lit: Vec<u8> = (0..4)
                .filter(|&d| light_state(node, d, t) != Light::Red)
                .collect();
            assert!(
                lit.len() <= 1 || lit.len() == 4 - approaches + 1,
                "t={t}: {lit:?}"
            );
            for d in lit {
                greens[d as usize] += 1;
            }
        }
        // Every approach gets green and yellow for 13 s of each cycle.
        let served = greens.iter().filter(|&&g| (129..=131).contains(&g)).count();
        assert_eq!(served, approaches, "{node:?}: {greens:?}");
        assert_eq!(red_seconds(node), approaches as f32 * 14.0 - 13.0);
    }
}
