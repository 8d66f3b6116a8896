use super::*;
use crate::world::math::{length, normalize, Rng};
use crate::world::{World, WorldConfig};

fn busy_world() -> World {
    let config = WorldConfig {
        vehicles: 60,
        pedestrians: 60,
        seed_vehicles: 7,
        seed_pedestrians: 8,
    };
    let mut w = World::new(&config, 3);
    for _ in 0..30 {
        w.step(&Default::default(), 0.1);
    }
    w
}

fn random_ray(rng: &mut Rng) -> (Vector3D, Vector3D) {
    let lo = -town::WALL - 10.0;
    let hi = town::LAST + town::WALL + 10.0;
    let o = v3(rng.range(lo, hi), rng.range(lo, hi), rng.range(0.05, 40.0));
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
    let mut rng = Rng::new(42);
    let (mut hits, mut actors) = (0, 0);
    for i in 0..10_000 {
        let (o, d) = random_ray(&mut rng);
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
                assert_eq!(
                    (a.semantic_tag, a.actor_id),
                    (b.semantic_tag, b.actor_id),
                    "ray {i}"
                );
                assert_eq!(a.normal, b.normal, "ray {i}");
                hits += 1;
                actors += (a.actor_id != 0) as u32;
            }
            (a, b) => panic!("ray {i} from {o:?} along {d:?}: grid {a:?}, brute force {b:?}"),
        }
    }
    assert!(hits > 5000, "{hits}");
    assert!(actors > 10, "{actors}");
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
        let o = v3(a.rect.cx + dx, a.rect.cy + dy, 1.0);
        let target = v3(a.rect.cx, a.rect.cy, (a.z0 + a.z1) / 2.0);
        let d = normalize(sub(target, o));
        let fast = scene.raycast(o, d, 100.0);
        assert_eq!(fast, scene.raycast_brute(o, d, 100.0));
        if let Some(h) = fast {
            assert!(
                h.distance <= length(sub(target, o)) + 1e-3,
                "{a:?} from {o:?}: {h:?}"
            );
        }
    }
}

fn sub(a: Vector3D, b: Vector3D) -> Vector3D {
    crate::world::math::sub(a, b)
}

#[test]
fn boxes_around_the_origin_are_not_hit() {
    let b = crate::world::map::geometry::StaticBox {
        min: v3(-1.0, -1.0, 0.0),
        max: v3(1.0, 1.0, 2.0),
        tag: town::tag::BUILDINGS,
        albedo: [1, 2, 3],
        light: crate::world::map::geometry::NO_LIGHT,
        actor: 0,
    };
    let scene = Scene::new(vec![b], CELL);
    let inside = scene.raycast(v3(0.0, 0.0, 1.0), v3(1.0, 0.0, 0.0), 50.0);
    assert_eq!(inside, None);
    let outside = scene
        .raycast(v3(-5.0, 0.0, 1.0), v3(1.0, 0.0, 0.0), 50.0)
        .unwrap();
    assert_eq!(outside.distance, 4.0);
    assert_eq!(outside.normal, v3(-1.0, 0.0, 0.0));
    assert_eq!(
        (outside.semantic_tag, outside.albedo),
        (town::tag::BUILDINGS, [1, 2, 3])
    );
    let ground = scene
        .raycast(v3(30.0, 1.75, 2.0), v3(0.0, 0.0, -1.0), 50.0)
        .unwrap();
    assert_eq!(
        (ground.distance, ground.semantic_tag),
        (2.0, town::tag::ROADS)
    );
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
fn light_poles_and_sign_posts_belong_to_their_actors() {
    use crate::world::map::geometry::static_geometry;
    use crate::world::map::town::{light_spots, sign_spots};
    use crate::world::{LIGHT_ID0, SIGN_ID0};
    let boxes = static_geometry();
    let lights = light_spots();
    // Every light's pole and lamp, every sign's post and board carry the
    // actor's id; the rest of the town is level geometry (0).
    for (i, l) in lights.iter().enumerate() {
        let owned: Vec<_> = boxes
            .iter()
            .filter(|b| b.actor == LIGHT_ID0 + i as u32)
            .collect();
        assert_eq!(owned.len(), 2, "light {i}: pole and lamp");
        assert!(owned.iter().any(|b| b.min.x <= l.x && l.x <= b.max.x));
    }
    for i in 0..sign_spots().len() {
        let n = boxes
            .iter()
            .filter(|b| b.actor == SIGN_ID0 + i as u32)
            .count();
        assert_eq!(n, 2, "sign {i}: post and board");
    }
    let owned = boxes.iter().filter(|b| b.actor != 0).count();
    assert_eq!(owned, 2 * (lights.len() + sign_spots().len()));
    // Overlaps and ray hits report the actor.
    let scene = Scene::new(boxes, CELL);
    let l = &lights[0];
    let r = Rect::new(l.x, l.y, 0.0, 0.3, 0.3);
    assert_eq!(
        scene.static_overlap(&r, 0.0, 1.5).map(|h| h.1),
        Some(LIGHT_ID0)
    );
    let hit = scene
        .raycast(v3(l.x - 5.0, l.y, 1.0), v3(1.0, 0.0, 0.0), 10.0)
        .unwrap();
    assert_eq!(hit.actor_id, LIGHT_ID0);
}
