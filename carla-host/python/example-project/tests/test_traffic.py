"""Traffic Manager cars drive off and keep apart."""

import random

import carla
import pytest


@pytest.mark.parametrize("count", [5, 10])
def test_autopilot_cars_drive_without_colliding(carla_world, carla_traffic_manager, carla_seed, count):
    rng = random.Random(carla_seed)
    spawn_points = carla_world.get_map().get_spawn_points()
    rng.shuffle(spawn_points)
    blueprints = carla_world.get_blueprint_library().filter("vehicle.*")
    cars = []
    for transform in spawn_points[:count]:
        bp = rng.choice([b for b in blueprints if int(b.get_attribute("number_of_wheels")) == 4])
        car = carla_world.try_spawn_actor(bp, transform)
        if car is not None:
            cars.append(car)
    assert len(cars) >= count - 1
    port = carla_traffic_manager.get_port()
    for car in cars:
        car.set_autopilot(True, port)
    starts = {car.id: car.get_location() for car in cars}
    for _ in range(200):
        carla_world.tick()
    moved = [starts[car.id].distance(car.get_location()) for car in cars]
    assert sum(m > 10.0 for m in moved) >= len(cars) * 3 // 4, f"distances {moved}"
    for i, a in enumerate(cars):
        for b in cars[i + 1:]:
            assert a.get_location().distance(b.get_location()) > 1.0, "two cars overlap"


def test_the_world_starts_fresh_for_each_test(carla_world):
    vehicles = carla_world.get_actors().filter("vehicle.*")
    ours = [v for v in vehicles if v.attributes.get("role_name") == "example-project"]
    assert ours == []
    bp = carla_world.get_blueprint_library().find("vehicle.audi.tt")
    bp.set_attribute("role_name", "example-project")
    carla_world.spawn_actor(bp, carla_world.get_map().get_spawn_points()[4])
    assert carla_world.get_settings().synchronous_mode


def test_a_second_fresh_world(carla_world):
    # The same check again: whichever of the two runs second finds no car
    # the other spawned (each worker runs its tests in turn).
    test_the_world_starts_fresh_for_each_test(carla_world)
