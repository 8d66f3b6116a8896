use super::*;
use crate::world::ids::LIGHT_ID0;
use crate::world::math::{length, normalize, Rng};
use crate::world::testing;

fn busy_world() -> crate::world::World {
    let mut w = testing::world(60, 60, 7, 3);
    for _ in 0..30 {
        w.step(&Default::default(), 0.1);
    }
    w
}

fn random_ray(rng: &mut Rng, lo: (f32, f32), hi: (f32, f32)) -> (Vector3D, Vector3D) {
    let o = v3(
        rng.range(lo.0, hi.0),
        rng.range(lo.1, hi.1),
        rng.range(0.05, 40.0),
    );
    let mut d = v3(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 0.6),
    );
    // Some rays along the axes exercise the infinite slopes.
    match rng.below(20) {
        0 => d.x = 0.0,
        1 => d.y = 0.0,
        2 => d.z = 0.0,
        3 => (d.x, d.y) = (0.0, 0.0),
        _ => {}
    }
    (o, normalize(d))
}

#[test]
fn raycast_matches_brute_force_on_random_rays() {
    let world = busy_world();
    let scene = world.scene();
    assert!(scene.actors().len() > 100);
    let g = scene.grid;
    let (lo, hi) = (
        (g.x0 - 10.0, g.y0 - 10.0),
        (
            g.x0 + g.nx as f32 * g.cell + 10.0,
            g.y0 + g.ny as f32 * g.cell + 10.0,
        ),
    );
    let mut rng = Rng::new(42);
    let (mut hits, mut actors, mut tris) = (0, 0, 0);
    for i in 0..6_000 {
        let (o, d) = random_ray(&mut rng, lo, hi);
        if length(d) == 0.0 {
            continue;
        }
        let max = if i % 2 == 0 { 400.0 } else { 40.0 };
        let fast = scene.raycast(o, d, max);
        let slow = scene.raycast_brute(o, d, max);
        match (fast, slow) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                let tol = 1e-4 * a.distance.max(1.0);
                assert!(
                    (a.distance - b.distance).abs() <= tol,
                    "ray {i}: {a:?} vs {b:?}"
                );
                if (a.distance - b.distance).abs() < 1e-6 {
                    assert_eq!(
                        (a.semantic_tag, a.actor_id),
                        (b.semantic_tag, b.actor_id),
                        "ray {i}"
                    );
                }
                hits += 1;
                actors += (a.actor_id != 0) as u32;
                tris += matches!(a.semantic_tag, tags::tag::ROADS | tags::tag::ROAD_LINES) as u32;
            }
            (a, b) => panic!("ray {i} from {o:?} along {d:?}: grid {a:?}, brute force {b:?}"),
        }
    }
    assert!(hits > 3000, "{hits}");
    assert!(actors > 5, "{actors}");
    assert!(tris > 100, "{tris}");
}

#[test]
fn rays_aimed_at_actors_hit_them() {
    let world = busy_world();
    let scene = world.scene();
    let mut rng = Rng::new(5);
    for a in scene.actors() {
        let (dx, dy) = (rng.range(-30.0, 30.0), rng.range(-30.0, 30.0));
        if dx.hypot(dy) < 4.0 {
            continue; // maybe inside the box
        }
        let o = v3(a.rect.cx + dx, a.rect.cy + dy, a.z0 + 1.0);
        let target = v3(a.rect.cx, a.rect.cy, (a.z0 + a.z1) / 2.0);
        let d = normalize(crate::world::math::sub(target, o));
        let fast = scene.raycast(o, d, 100.0);
        assert_eq!(fast, scene.raycast_brute(o, d, 100.0));
        if let Some(h) = fast {
            assert!(
                h.distance <= length(crate::world::math::sub(target, o)) + 1e-3,
                "{a:?} from {o:?}: {h:?}"
            );
        }
    }
}

fn one_box_scene(tris: Vec<Tri>, materials: Vec<Material>) -> Scene {
    let b = StaticBox {
        min: v3(-1.0, -1.0, 0.0),
        max: v3(1.0, 1.0, 2.0),
        tag: tag::BUILDINGS,
        albedo: [1, 2, 3],
        light: NO_LIGHT,
        actor: 0,
    };
    Scene::of(Statics {
        lamps: Vec::new(),
        boxes: vec![b],
        tris,
        materials,
        ground_z: -0.5,
        ground: Material {
            tag: tag::TERRAIN,
            albedo: [9, 9, 9],
            solid: false,
        },
        bounds: ((-50.0, -50.0), (50.0, 50.0)),
    })
}

#[test]
fn boxes_around_the_origin_are_not_hit_and_the_ground_plane_is() {
    let scene = one_box_scene(Vec::new(), Vec::new());
    let inside = scene.raycast(v3(0.0, 0.0, 1.0), v3(1.0, 0.0, 0.0), 50.0);
    assert_eq!(inside, None);
    let outside = scene
        .raycast(v3(-5.0, 0.0, 1.0), v3(1.0, 0.0, 0.0), 50.0)
        .unwrap();
    assert_eq!(outside.distance, 4.0);
    assert_eq!(outside.normal, v3(-1.0, 0.0, 0.0));
    assert_eq!(
        (outside.semantic_tag, outside.albedo),
        (tag::BUILDINGS, [1, 2, 3])
    );
    let ground = scene
        .raycast(v3(30.0, 1.75, 2.0), v3(0.0, 0.0, -1.0), 50.0)
        .unwrap();
    assert_eq!((ground.distance, ground.semantic_tag), (2.5, tag::TERRAIN));
    assert!(scene
        .static_overlap(&Rect::new(1.5, 0.0, 0.3, 1.0, 0.5), 0.0, 1.5)
        .is_some());
    assert!(scene
        .static_overlap(&Rect::new(3.5, 0.0, 0.3, 1.0, 0.5), 0.0, 1.5)
        .is_none());
    assert!(scene
        .static_overlap(&Rect::new(0.0, 0.0, 0.0, 1.0, 0.5), 2.5, 3.0)
        .is_none());
}

#[test]
fn triangles_are_hit_from_either_side_and_walls_stop_footprints() {
    let road = Material {
        tag: tag::ROADS,
        albedo: [70, 70, 70],
        solid: false,
    };
    let wall = Material {
        tag: tag::WALLS,
        albedo: [150, 150, 150],
        solid: true,
    };
    // A ramp rising 1 m over x = 10..20 (y = -5..5), and a wall at x = 30.
    let p = |x, y, z| v3(x, y, z);
    let tris = vec![
        Tri::new(p(10.0, -5.0, 0.0), p(20.0, -5.0, 1.0), p(20.0, 5.0, 1.0), 0).unwrap(),
        Tri::new(p(10.0, -5.0, 0.0), p(20.0, 5.0, 1.0), p(10.0, 5.0, 0.0), 0).unwrap(),
        Tri::new(p(30.0, -5.0, 0.0), p(30.0, 5.0, 0.0), p(30.0, 5.0, 3.0), 1).unwrap(),
        Tri::new(p(30.0, -5.0, 0.0), p(30.0, 5.0, 3.0), p(30.0, -5.0, 3.0), 1).unwrap(),
    ];
    assert!(
        tris[0].normal.z > 0.99,
        "ramps face up: {:?}",
        tris[0].normal
    );
    let scene = one_box_scene(tris, vec![road, wall]);
    // Down onto the ramp at x = 15: its height is 0.5.
    let (z, n) = scene.ground_at(15.0, 0.0, 3.0, 0.0);
    assert!((z - 0.5).abs() < 1e-5, "{z}");
    assert!(n.z > 0.99 && n.x < 0.0, "{n:?}");
    // From below, the ramp is hit too, its normal facing the ray.
    let up = scene
        .raycast(v3(15.0, 0.0, -0.2), v3(0.0, 0.0, 1.0), 10.0)
        .unwrap();
    assert!(
        (up.distance - 0.7).abs() < 1e-5 && up.normal.z < 0.0,
        "{up:?}"
    );
    assert_eq!(up.semantic_tag, tag::ROADS);
    // Off the ramp, the ground plane.
    assert_eq!(scene.ground_at(40.0, 0.0, 3.0, 0.0).0, -0.5);
    // The wall stops a footprint crossing it, not one beside it or above.
    assert_eq!(
        scene.static_overlap(&Rect::new(30.0, 0.0, 0.0, 1.0, 1.0), 0.0, 1.5),
        Some((tag::WALLS, 0))
    );
    assert!(scene
        .static_overlap(&Rect::new(32.0, 0.0, 0.0, 1.0, 1.0), 0.0, 1.5)
        .is_none());
    assert!(scene
        .static_overlap(&Rect::new(30.0, 0.0, 0.0, 1.0, 1.0), 3.5, 4.0)
        .is_none());
    // The ramp, a road, never stops one.
    assert!(scene
        .static_overlap(&Rect::new(15.0, 0.0, 0.0, 1.0, 1.0), 0.0, 1.5)
        .is_none());
}

#[test]
fn light_poles_and_lamps_belong_to_their_actors() {
    let town = testing::town();
    let lights: Vec<_> = town.map.signs.lights().collect();
    assert!(lights.len() > 20);
    let scene = Scene::new(town.fixed.clone());
    for (i, (_, l)) in lights.iter().enumerate() {
        let owned: Vec<usize> = (0..scene.static_bounds().len())
            .filter(|&b| scene.static_actor(b) == LIGHT_ID0 + i as u32)
            .collect();
        assert_eq!(owned.len(), 2, "light {i}: pole and lamp");
        // Overlaps and ray hits report the actor.
        let [x, y, z] = l.position;
        let r = Rect::new(x, y, 0.0, 0.3, 0.3);
        assert_eq!(
            scene.static_overlap(&r, z, z + 1.5).map(|h| h.1),
            Some(LIGHT_ID0 + i as u32),
            "light {i}"
        );
        let hit = scene
            .raycast(v3(x - 3.0, y, z + 1.0), v3(1.0, 0.0, 0.0), 10.0)
            .unwrap();
        assert_eq!(hit.actor_id, LIGHT_ID0 + i as u32, "light {i}");
    }
}

#[test]
fn a_flat_convex_pair_of_triangles_is_one_quad_and_nothing_else_is() {
    use super::Poly;
    let p = |x: f32, y: f32, z: f32| Vector3D { x, y, z };
    let tri = |a, b, c, m| Tri::new(a, b, c, m).expect("a triangle");
    // A strip's pair: a b c, then a c d.
    let (a, b, c, d) = (
        p(0.0, 0.0, 0.0),
        p(4.0, 0.0, 0.0),
        p(5.0, 3.0, 0.0),
        p(0.0, 3.0, 0.0),
    );
    let quad = Poly::pair(&tri(a, b, c, 2), &tri(a, c, d, 2)).expect("a flat convex pair");
    assert_eq!(
        (quad.points(), quad.n, quad.material),
        (&[a, b, c, d][..], 4, 2)
    );
    // Another material, another plane, no shared edge, a dent: two faces.
    assert!(Poly::pair(&tri(a, b, c, 2), &tri(a, c, d, 3)).is_none());
    let lifted = p(0.0, 3.0, 0.5);
    assert!(Poly::pair(&tri(a, b, c, 2), &tri(a, c, lifted, 2)).is_none());
    assert!(Poly::pair(&tri(a, b, c, 2), &tri(b, c, d, 2)).is_none());
    let dent = p(4.0, 1.0, 0.0);
    assert!(Poly::pair(&tri(a, b, c, 2), &tri(a, c, dent, 2)).is_none());
    // The blocks hold the pair once, as the quad, and a lone triangle as
    // itself.
    let lone = tri(p(9.0, 9.0, 0.0), p(10.0, 9.0, 0.0), p(9.0, 10.0, 0.0), 1);
    let tris = [tri(a, b, c, 2), tri(a, c, d, 2), lone];
    let grid = super::grid::Grid::new((-1.0, -1.0), (12.0, 12.0), 20.0);
    let polys: Vec<Poly> = super::grid::blocks(&grid, &tris, &[])
        .into_iter()
        .flat_map(|b| b.polys)
        .collect();
    assert_eq!(polys, vec![quad, Poly::of(&lone)]);
}
