"""An RGB camera on the car: one image per tick, stamped with its frame."""

import queue

import carla
import pytest


@pytest.mark.parametrize("size", [(320, 240), (800, 600)])
def test_one_image_per_tick_with_the_ticks_frame(carla_world, size):
    width, height = size
    bp = carla_world.get_blueprint_library().find("vehicle.audi.tt")
    car = carla_world.spawn_actor(bp, carla_world.get_map().get_spawn_points()[2])
    cam_bp = carla_world.get_blueprint_library().find("sensor.camera.rgb")
    cam_bp.set_attribute("image_size_x", str(width))
    cam_bp.set_attribute("image_size_y", str(height))
    camera = carla_world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=1.5, z=1.6)), attach_to=car)
    images: "queue.Queue[carla.Image]" = queue.Queue()
    camera.listen(images.put)
    try:
        for _ in range(5):
            frame = carla_world.tick()
            image = images.get(timeout=5.0)
            assert image.frame == frame
            assert (image.width, image.height) == (width, height)
            data = bytes(image.raw_data)
            assert len(data) == width * height * 4
            assert len(set(data[0::4])) > 8, "the image is flat"
    finally:
        camera.stop()
