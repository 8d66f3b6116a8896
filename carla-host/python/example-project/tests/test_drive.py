"""The lane follower keeps its lane and reaches its speed."""

import math

import carla
import pytest

from lane_follower import LaneFollower


@pytest.mark.parametrize("start", [0, 3, 7])
def test_the_follower_keeps_its_lane_at_its_speed(carla_world, start):
    spawn_points = carla_world.get_map().get_spawn_points()
    bp = carla_world.get_blueprint_library().find("vehicle.tesla.model3")
    car = carla_world.spawn_actor(bp, spawn_points[start % len(spawn_points)])
    carla_world.tick()
    follower = LaneFollower(car, target_speed=8.0)
    first = car.get_location()
    dt = carla_world.get_settings().fixed_delta_seconds
    worst_offset = 0.0
    for step in range(200):  # 10 s of simulated time
        car.apply_control(follower.run_step(dt))
        carla_world.tick()
        if step > 40:
            lane = carla_world.get_map().get_waypoint(car.get_location())
            worst_offset = max(worst_offset, lane.transform.location.distance(car.get_location()))
    travelled = first.distance(car.get_location())
    assert travelled > 40.0, f"the car moved {travelled:.1f} m in 10 s"
    assert abs(follower.speed() - 8.0) < 2.0, f"speed {follower.speed():.1f} m/s, wanted 8"
    assert worst_offset < 1.5, f"the car left its lane's centre by {worst_offset:.2f} m"


def test_a_full_brake_stops_the_car(carla_world):
    bp = carla_world.get_blueprint_library().find("vehicle.tesla.model3")
    car = carla_world.spawn_actor(bp, carla_world.get_map().get_spawn_points()[1])
    carla_world.tick()
    follower = LaneFollower(car, target_speed=10.0)
    dt = carla_world.get_settings().fixed_delta_seconds
    for _ in range(100):
        car.apply_control(follower.run_step(dt))
        carla_world.tick()
    assert follower.speed() > 5.0
    for _ in range(100):
        car.apply_control(carla.VehicleControl(brake=1.0))
        carla_world.tick()
    assert follower.speed() < 0.1, f"still {follower.speed():.2f} m/s after 5 s of full brake"
    assert not math.isnan(car.get_location().x)
