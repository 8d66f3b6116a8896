"""The code under test: a lane follower in the style of CARLA's BasicAgent.

Speed by a PI controller on throttle and brake, steering by pure pursuit
towards a waypoint a few metres ahead on the car's own lane.
"""

from __future__ import annotations

import math

import carla


class LaneFollower:
    def __init__(self, vehicle: "carla.Vehicle", target_speed: float = 8.0, lookahead: float = 6.0) -> None:
        self.vehicle = vehicle
        self.map = vehicle.get_world().get_map()
        self.target_speed = target_speed
        self.lookahead = lookahead
        self._integral = 0.0

    def speed(self) -> float:
        v = self.vehicle.get_velocity()
        return math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z)

    def target(self) -> "carla.Waypoint":
        here = self.map.get_waypoint(self.vehicle.get_location())
        ahead = here.next(self.lookahead)
        return ahead[0] if ahead else here

    def run_step(self, dt: float) -> "carla.VehicleControl":
        error = self.target_speed - self.speed()
        self._integral = max(-5.0, min(5.0, self._integral + error * dt))
        accel = 0.5 * error + 0.1 * self._integral
        control = carla.VehicleControl()
        if accel >= 0.0:
            control.throttle = min(0.75, accel)
        else:
            control.brake = min(1.0, -accel)
        t = self.vehicle.get_transform()
        goal = self.target().transform.location
        heading = math.radians(t.rotation.yaw)
        dx, dy = goal.x - t.location.x, goal.y - t.location.y
        alpha = math.atan2(dy, dx) - heading
        alpha = math.atan2(math.sin(alpha), math.cos(alpha))
        wheelbase = 2.9
        steer_angle = math.atan2(2.0 * wheelbase * math.sin(alpha), max(1.0, math.hypot(dx, dy)))
        control.steer = max(-1.0, min(1.0, steer_angle / math.radians(70.0)))
        return control
