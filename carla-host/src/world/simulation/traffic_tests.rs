use super::*;
use crate::world::testing;

/// A junction lane of the built-in town with a crossing lane, and that
/// crossing lane.
fn crossing_pair(lanes: &Lanes, ways: &Ways) -> (LaneIx, LaneIx) {
    (0..lanes.lanes.len() as LaneIx)
        .filter(|&n| lanes.in_junction(n))
        .find_map(|n| Some((n, *ways.conflicts[n as usize].first()?)))
        .expect("the built-in town has crossing junction lanes")
}

/// A client's car (or a walker, or a town car) at distance `back` before
/// the start of `lane`, heading along it at `speed`.
fn coming(lanes: &Lanes, lane: LaneIx, back: f32, speed: f32, kind: &str) -> Obstacle {
    let p = lanes.lane(lane).pose(0.0);
    let (sin, cos) = p.yaw.sin_cos();
    let (x, y) = (p.position[0] - cos * back, p.position[1] - sin * back);
    Obstacle {
        rect: Rect::new(x, y, p.yaw, 2.3, 1.0),
        id: 7,
        speed,
        walker: kind == "walker",
        traffic: kind == "traffic",
    }
}

#[test]
fn a_junction_lane_is_not_free_while_a_clients_car_comes_on_a_crossing_lane() {
    let town = testing::town();
    let (lanes, ways) = (&town.map.lanes, &town.ways);
    let (n, c) = crossing_pair(lanes, ways);
    let mut claims = vec![0; lanes.lanes.len()];
    let crossing = |obstacles: &[Obstacle], claims: &mut Vec<u32>| {
        let road = Road {
            lanes,
            ways,
            lights: &town.lights,
            obstacles,
            claims,
        };
        client_crossing(&road, n)
    };
    // On the crossing lane, standing: in the way.
    assert!(crossing(
        &[coming(lanes, c, 0.0, 0.0, "client")],
        &mut claims
    ));
    // 15 m before it at 8 m/s (there within 3 s): in the way.
    assert!(crossing(
        &[coming(lanes, c, 15.0, 8.0, "client")],
        &mut claims
    ));
    // Standing 15 m before it, or coming but 40 m away: not yet.
    assert!(!crossing(
        &[coming(lanes, c, 15.0, 0.0, "client")],
        &mut claims
    ));
    assert!(!crossing(
        &[coming(lanes, c, 40.0, 8.0, "client")],
        &mut claims
    ));
    // Walkers and the town's own cars are not clients' cars (the town's
    // keep apart by their claims).
    assert!(!crossing(
        &[coming(lanes, c, 0.0, 0.0, "walker")],
        &mut claims
    ));
    assert!(!crossing(
        &[coming(lanes, c, 0.0, 0.0, "traffic")],
        &mut claims
    ));
    assert!(!crossing(&[], &mut claims));
}
