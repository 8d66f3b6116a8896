"""Renders the gallery of docs/demo-world.md ("Pictures"): the demo
world's RGB camera on one street of the built-in town under CARLA's
weather presets, 400x300, saved as docs/images/weather-<Preset>.png
through the stock client's own PNG writer.

Usage: python render_gallery.py PORT OUT_DIR   (scripts/render-gallery.sh
starts the server and runs it)"""
import os
import queue
import sys

import carla

PRESETS = ["ClearNoon", "CloudyNoon", "WetNoon", "HardRainNoon", "ClearSunset", "CloudySunset",
           "WetSunset", "ClearNight", "WetNight"]
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.get_world()
settings = world.get_settings()
settings.synchronous_mode, settings.fixed_delta_seconds = True, 0.05
world.apply_settings(settings)
spot = world.get_map().get_spawn_points()[3]
bp = world.get_blueprint_library().find("sensor.camera.rgb")
bp.set_attribute("image_size_x", "400")
bp.set_attribute("image_size_y", "300")
camera = world.spawn_actor(bp, carla.Transform(spot.location + carla.Location(z=1.8), spot.rotation))
images = queue.Queue()
camera.listen(images.put)
for name in PRESETS:
    world.set_weather(getattr(carla.WeatherParameters, name))
    frame = world.tick()
    while True:
        image = images.get(timeout=10.0)
        if image.frame == frame:
            break
    path = os.path.join(sys.argv[2], "weather-%s.png" % name)
    image.save_to_disk(path)
    print(path)
camera.stop()
camera.destroy()
settings.synchronous_mode, settings.fixed_delta_seconds = False, None
world.apply_settings(settings)
