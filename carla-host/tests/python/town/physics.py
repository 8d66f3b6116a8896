"""Vehicle physics through the stock client: on a map this script writes (a
flat straight road and a 10% grade, loaded with generate_opendrive_world)
the physics control changes how a car drives, brakes stop it as its brakes
and tires allow, steering turns it on its wheelbase, a car rolls down a
grade and its hand brake holds it, manual gears hold, telemetry tells the
engine and wheels, each blueprint has its own mass, two cars collide and
both sensors say so, a run repeats bit for bit, and absurd physics input
leaves the world finite. Prints figures and OK.

Usage: python physics.py PORT"""
import math

import carla
from common import end_ok, connect, check, state_hash, synchronous

DT = 0.05

# Road 1: 2 km along +x, flat, 4 lanes each way (28 m wide). Road 2: 200 m along +x at y = -200 (CARLA
# y; OpenDRIVE's +200), rising 10%.
ROAD = """<road id="{id}" length="{length}" junction="-1"><link/>
<planView><geometry s="0" x="0" y="{y}" hdg="0" length="{length}"><line/></geometry></planView>
<elevationProfile><elevation s="0" a="0" b="{grade}" c="0" d="0"/></elevationProfile>
<lanes><laneSection s="0">
<left>{left}</left>
<center><lane id="0" type="none"/></center>
<right>{right}</right>
</laneSection></lanes></road>"""
LANE = '<lane id="{}" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane>'


def road(id, length, y, grade, lanes):
    """A straight road along +x, `lanes` driving lanes each way."""
    return ROAD.format(id=id, length=length, y=y, grade=grade,
                       left="".join(LANE.format(i) for i in range(lanes, 0, -1)),
                       right="".join(LANE.format(-i) for i in range(1, lanes + 1)))


XODR = ('<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="4"/>'
        + road(1, 2000, 0, 0, 4)
        + road(2, 200, 200, 0.1, 1)
        + "</OpenDRIVE>")

client, world = connect()


def fresh_world():
    """The test map, loaded anew (so every run starts the same), ticked
    synchronously."""
    w = client.generate_opendrive_world(XODR)
    synchronous(w, DT)
    w.tick()
    return w


world = fresh_world()
bl = world.get_blueprint_library()
BP = bl.find("vehicle.tesla.model3")


def spawn(x, y=-1.75, z=0.3, pitch=0.0, yaw=0.0, control=None):
    """A Tesla at (x, y), settled for 10 ticks (under `control`)."""
    car = world.spawn_actor(BP, carla.Transform(carla.Location(x, y, z), carla.Rotation(pitch, yaw, 0.0)))
    if control is not None:
        car.apply_control(control)
    for _ in range(10):
        world.tick()
    return car


def speed(a):
    v = a.get_velocity()
    return math.hypot(v.x, v.y)


def zero_to_50(change=None):
    car = spawn(10.0)
    if change:
        pc = car.get_physics_control()
        change(pc)
        car.apply_physics_control(pc)
        world.tick()
    car.apply_control(carla.VehicleControl(throttle=1.0))
    ticks = 0
    while speed(car) < 50 / 3.6 and ticks < 1200:
        world.tick()
        ticks += 1
    car.destroy()
    world.tick()
    return ticks * DT


# 0-50 km/h: the mass, the engine's torque and its inertia matter.
base = zero_to_50()
heavy = zero_to_50(lambda pc: setattr(pc, "mass", pc.mass * 2))
weak = zero_to_50(lambda pc: setattr(pc, "torque_curve", [carla.Vector2D(p.x, p.y / 2) for p in pc.torque_curve]))


def nimble(pc):
    pc.moi = 0.2
    pc.gear_switch_time = 0.1


def nimble_heavy(pc):
    nimble(pc)
    pc.mass *= 2


quick = zero_to_50(nimble)
quick_heavy = zero_to_50(nimble_heavy)
print("0-50 km/h: %.2f s; twice the mass %.2f s (x%.2f); half the torque %.2f s; "
      "engine inertia 0.2 kg m2, shifts 0.1 s: %.2f s, twice the mass %.2f s (x%.2f)"
      % (base, heavy, heavy / base, weak, quick, quick_heavy, quick_heavy / quick))
check(2.0 < base < 15.0, "0-50 km/h in %.2f s" % base)
check(1.3 <= heavy / base <= 2.5, "twice the mass: x%.2f" % (heavy / base))
check(1.5 <= quick_heavy / quick <= 2.5, "twice the mass, light engine: x%.2f" % (quick_heavy / quick))
check(weak > base * 1.2, "half the torque: %.2f s vs %.2f s" % (weak, base))


# Swept wheels (use_sweep_wheel_collision) drive alike on a flat road.
def swept(pc):
    pc.use_sweep_wheel_collision = True


sweeping = zero_to_50(swept)
print("swept wheels: 0-50 km/h %.2f s" % sweeping)
check(abs(sweeping - base) <= 0.1 * base, "swept wheels: %.2f s vs %.2f s" % (sweeping, base))


# The tires' longitudinal stiffness: a soft tire spins (telemetry's
# long_slip) and the car gets to 50 km/h later.
def soft_tires(pc):
    wheels = pc.wheels
    for w in wheels:
        w.long_stiff_value = 20.0
    pc.wheels = wheels


soft = zero_to_50(soft_tires)
car = spawn(10.0, control=carla.VehicleControl(throttle=1.0))
slip = [w.long_slip for w in car.get_telemetry_data().wheels]
car.destroy()
world.tick()
print("long_stiff_value 20: 0-50 km/h %.2f s; long_slip at full throttle %s"
      % (soft, [round(x, 3) for x in slip]))
check(soft > base * 1.5, "soft tires: %.2f s vs %.2f s" % (soft, base))
check(len(slip) == 4 and all(0.01 < x < 1.0 for x in slip), "long_slip under throttle: %s" % slip)


def top_speed(change=None):
    car = spawn(10.0)
    if change:
        pc = car.get_physics_control()
        change(pc)
        car.apply_physics_control(pc)
    car.apply_control(carla.VehicleControl(throttle=1.0))
    for _ in range(400):
        world.tick()
    v = speed(car)
    car.destroy()
    world.tick()
    return v


top = top_speed()
short = top_speed(lambda pc: setattr(pc, "final_ratio", pc.final_ratio * 2))
first = top_speed(lambda pc: setattr(pc, "forward_gears", pc.forward_gears[:1]))
print("speed after 20 s: %.1f m/s; final ratio x2 %.1f m/s; first gear only %.1f m/s" % (top, short, first))
check(short < 0.8 * top and first < 0.6 * top, "ratios change the top speed")


# Engine braking: off the throttle in third gear at 15 m/s, the engine's
# zero-throttle damping rate, through the clutch, slows the car; without it
# (or with a weak clutch) the car coasts on.
def coast(change=None):
    car = spawn(1400.0)
    pc = car.get_physics_control()
    if change:
        change(pc)
    car.apply_physics_control(pc)
    car.set_target_velocity(carla.Vector3D(15.0, 0.0, 0.0))
    car.apply_control(carla.VehicleControl(manual_gear_shift=True, gear=3))
    for _ in range(40):
        world.tick()
    v = speed(car)
    car.destroy()
    world.tick()
    return v


braked = coast()
free = coast(lambda pc: setattr(pc, "damping_rate_zero_throttle_clutch_engaged", 0.0))
slipping = coast(lambda pc: setattr(pc, "clutch_strength", 0.5))
print("off the throttle from 15 m/s in third, 2 s: %.2f m/s; no engine damping %.2f m/s; weak clutch %.2f m/s"
      % (braked, free, slipping))
check(braked < free - 2.0 and braked < slipping - 1.0 and free > 13.0,
      "engine braking: %.2f, free %.2f, weak clutch %.2f" % (braked, free, slipping))

# Manual gears (VehicleControl.manual_gear_shift): the car stays in the
# driver's gear; get_control() and the telemetry report the gear it is in.
def manual(gear, ticks=400, x=10.0):
    car = spawn(x)
    car.apply_control(carla.VehicleControl(throttle=1.0, manual_gear_shift=True, gear=gear))
    for _ in range(ticks):
        world.tick()
    v = car.get_velocity()
    forward = car.get_transform().get_forward_vector()
    along = v.x * forward.x + v.y * forward.y
    reported = (car.get_control().gear, car.get_telemetry_data().gear)
    if gear == 1:
        # The wheels' steer angle follows the steering curve at speed.
        car.apply_control(carla.VehicleControl(throttle=1.0, steer=0.2, manual_gear_shift=True, gear=1))
        world.tick()
        pc = car.get_physics_control()
        kmh = abs(car.get_velocity().length()) * 3.6
        curve = sorted((p.x, p.y) for p in pc.steering_curve)
        factor = next((a[1] + (b[1] - a[1]) * (kmh - a[0]) / (b[0] - a[0])
                       for a, b in zip(curve, curve[1:]) if a[0] <= kmh <= b[0]), curve[-1][1])
        angle = car.get_wheel_steer_angle(carla.VehicleWheelLocation.FL_Wheel)
        want = 0.2 * pc.wheels[0].max_steer_angle * factor
        print("steer 0.2 at %.0f km/h: front wheel %.2f deg (curve factor %.3f: %.2f)" % (kmh, angle, factor, want))
        check(abs(angle - want) < 0.3 and factor < 0.9, "wheel angle %.2f, want %.2f" % (angle, want))
    car.destroy()
    world.tick()
    return along, reported


in_first, first_gear = manual(1)
in_neutral, neutral_gear = manual(0, 60)
backwards, reverse_gear = manual(-1, 60, x=300.0)
print("manual: first gear %.1f m/s (gear %s), neutral %.2f m/s (%s), reverse %.1f m/s (%s)"
      % (in_first, first_gear, in_neutral, neutral_gear, backwards, reverse_gear))
check(abs(in_first - first) < 1.0 and first_gear == (1, 1), "first gear: %.1f m/s %s" % (in_first, first_gear))
check(abs(in_neutral) < 0.3 and neutral_gear == (0, 0), "neutral: %.2f m/s %s" % (in_neutral, neutral_gear))
check(backwards < -2.0 and reverse_gear == (-1, -1), "reverse: %.1f m/s %s" % (backwards, reverse_gear))

# apply_ackermann_control: the server's controller holds the asked speed
# with CARLA's gains; gains of zero give no pedal at all.
def ackermann(speed_target, gains=None, ticks=300):
    car = spawn(1200.0)
    defaults = car.get_ackermann_controller_settings()
    if gains is not None:
        car.apply_ackermann_controller_settings(carla.AckermannControllerSettings(*gains))
        world.tick()
    read = car.get_ackermann_controller_settings()
    car.apply_ackermann_control(carla.VehicleAckermannControl(steer=0.0, speed=speed_target))
    for _ in range(ticks):
        world.tick()
    v = speed(car)
    applied = car.get_control()
    car.destroy()
    world.tick()
    return v, defaults, read, applied


held, defaults, _, applied = ackermann(8.0)
# get_control() is the control applied: the controller's pedal holding
# 8 m/s against the engine's braking.
check(0.05 < applied.throttle < 0.95 and applied.brake == 0.0, "the applied control: %s" % applied)

idle, _, read, _ = ackermann(8.0, gains=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0), ticks=60)
print("ackermann: 8 m/s asked, %.2f m/s after 15 s (gains %s); all gains 0: %.2f m/s"
      % (held, [round(g, 3) for g in (defaults.speed_kp, defaults.speed_ki, defaults.speed_kd,
                                       defaults.accel_kp, defaults.accel_ki, defaults.accel_kd)], idle))
check(abs(held - 8.0) < 0.5, "the Ackermann controller holds 8 m/s: %.2f" % held)
check(abs(defaults.speed_kp - 0.15) < 1e-6 and abs(defaults.accel_kd - 0.01) < 1e-6, "CARLA's default gains")
check(read.speed_kp == 0.0 and read.accel_kd == 0.0 and idle < 0.1, "zero gains read back and drive nothing: %.2f" % idle)

# Telemetry (get_telemetry_data) at full throttle: the engine turns, the
# autobox has shifted, the wheels carry the car's weight and the drive.
car = spawn(10.0)
car.apply_control(carla.VehicleControl(throttle=1.0))
for _ in range(200):
    world.tick()
t = car.get_telemetry_data()
weight = car.get_physics_control().mass * 9.81
load = sum(w.tire_load for w in t.wheels)
drive = sum(w.torque for w in t.wheels)
print("telemetry after 10 s: %.1f m/s, gear %d, %.0f rpm, drag %.0f N, wheels carry %.0f N of %.0f N, "
      "drive torque %.0f N m" % (t.speed, t.gear, t.engine_rpm, t.drag, load, weight, drive))
check(abs(t.speed - speed(car)) < 0.5 and t.throttle == 1.0, "telemetry speed %.2f" % t.speed)
check(t.gear >= 2 and t.gear == car.get_control().gear and t.engine_rpm > 1000.0, "gear %d rpm %.0f" % (t.gear, t.engine_rpm))
check(len(t.wheels) == 4 and abs(load - weight) < 0.1 * weight, "wheel loads %.0f of %.0f" % (load, weight))
check(drive > 0.0 and t.drag > 0.0, "drive %.0f, drag %.0f" % (drive, t.drag))
car.destroy()
world.tick()

# Full brake at 20 m/s: it stops in v^2 / (2 a), a = the brakes' torque
# over the wheels' radius and the mass, or the tires' grip (mu g), whichever
# is less.
car = spawn(10.0)
pc = car.get_physics_control()
torque = sum(w.max_brake_torque / (w.radius / 100.0) for w in pc.wheels)
a = min(torque / pc.mass, min(w.tire_friction for w in pc.wheels) * 9.81)
car.set_target_velocity(carla.Vector3D(20.0, 0.0, 0.0))
world.tick()
x0 = car.get_location().x
car.apply_control(carla.VehicleControl(brake=1.0))
for _ in range(200):
    world.tick()
    if speed(car) < 0.05:
        break
stop = car.get_location().x - x0
ideal = 20.0 ** 2 / (2 * a)
print("full brake from 20 m/s: %.1f m (v^2/2a with a = %.1f m/s^2: %.1f m)" % (stop, a, ideal))
check(0.7 * ideal < stop < 1.4 * ideal, "braking distance %.1f m vs %.1f m" % (stop, ideal))
car.destroy()
world.tick()

# Full steer at 5 m/s: a circle of wheelbase / tan(max steer angle), the
# steering curve flat (the road is wide enough for it).
car = spawn(50.0)
pc = car.get_physics_control()
pc.steering_curve = [carla.Vector2D(0.0, 1.0), carla.Vector2D(200.0, 1.0)]
wheels = pc.wheels
for w in wheels[:2]:
    w.max_steer_angle = 30.0
pc.wheels = wheels
car.apply_physics_control(pc)
world.tick()
front = (wheels[0].position + wheels[1].position) / 2.0
rear = (wheels[2].position + wheels[3].position) / 2.0
wheelbase = front.distance(rear) / 100.0
car.set_target_velocity(carla.Vector3D(5.0, 0.0, 0.0))
for _ in range(120):
    car.apply_control(carla.VehicleControl(throttle=0.6 if speed(car) < 5.0 else 0.0, steer=1.0))
    world.tick()
w = car.get_angular_velocity().z
radius = speed(car) / math.radians(w)
ideal = wheelbase / math.tan(math.radians(30.0))
print("full steer at 5 m/s: radius %.2f m (wheelbase %.2f m / tan 30 deg = %.2f m)" % (radius, wheelbase, ideal))
check(abs(radius - ideal) < 0.3 * ideal, "turning radius %.2f m vs %.2f m" % (radius, ideal))
car.destroy()
world.tick()

# A 10% grade: no throttle, no brake, it rolls down; the hand brake holds.
def on_grade(hand):
    pitch = math.degrees(math.atan(0.1))
    car = spawn(100.0, y=-198.25, z=10.3, pitch=pitch, control=carla.VehicleControl(hand_brake=hand))
    x0 = car.get_location().x
    for _ in range(120):
        world.tick()
    moved = car.get_location().x - x0
    car.destroy()
    world.tick()
    return moved


rolled, held = on_grade(False), on_grade(True)
print("10%% grade, 6 s: free %.2f m, hand brake %.2f m" % (rolled, held))
check(rolled < -2.0, "it rolls down: %.2f m" % rolled)
check(abs(held) < 0.3, "the hand brake holds: %.2f m" % held)

# A car at 10 m/s into a parked one: both sensors name the other, the
# impulse is about m dv, they do not overlap, the parked car moves.
striker, parked = spawn(100.0), spawn(120.0)
hits = {striker.id: [], parked.id: []}
sensors = []
for car in (striker, parked):
    s = world.spawn_actor(bl.find("sensor.other.collision"), carla.Transform(), attach_to=car)
    s.listen(lambda e, me=car.id: hits[me].append((e.other_actor.id, e.normal_impulse.length(), e.frame)))
    sensors.append(s)
world.tick()
striker.set_target_velocity(carla.Vector3D(10.0, 0.0, 0.0))
gap = math.inf
speeds = {}
for _ in range(60):
    frame = world.tick()
    speeds[frame] = speed(striker)
    d = parked.get_location().x - striker.get_location().x
    gap = min(gap, d - striker.bounding_box.extent.x - parked.bounding_box.extent.x)
for _ in range(5):
    world.tick()
mass = striker.get_physics_control().mass
# The first contact: the frames from the first hit on, one after another.
frames = sorted({f for _, _, f in hits[striker.id]})
first = [frames[0]] if frames else []
for f in frames[1:]:
    if f == first[-1] + 1:
        first.append(f)
before = speeds.get(first[0] - 1, 10.0) if first else 10.0
after = speeds.get(first[-1], 10.0) if first else 10.0
dv = before - after
impulse = sum(j for _, j, f in hits[striker.id] if f in first)
moved = parked.get_location().x - 120.0
print("collision at 10 m/s: impulse %.0f N s over %d ticks (m dv %.0f), closest %.3f m, parked car pushed %.2f m"
      % (impulse, len(first), mass * dv, gap, moved))
check(hits[striker.id] and all(o == parked.id for o, _, _ in hits[striker.id]), "the striker's sensor names the parked car")
check(hits[parked.id] and all(o == striker.id for o, _, _ in hits[parked.id]), "the parked car's sensor names the striker")
check(abs(impulse - mass * dv) < 0.5 * mass * dv, "impulse %.0f vs m dv %.0f" % (impulse, mass * dv))
check(gap > -0.1, "overlap %.3f m" % gap)
check(moved > 0.5, "the parked car moved %.2f m" % moved)
for s in sensors:
    s.stop()
    s.destroy()
striker.destroy()
parked.destroy()
world.tick()

# A walker is a character: it walks up to a parked car and stops there; a
# car driving into a standing walker shoves it along, and both sensors
# name the other.
walker_bp = bl.find("walker.pedestrian.0001")
parked = spawn(700.0)
walker = world.spawn_actor(walker_bp, carla.Transform(carla.Location(690.0, -1.75, 1.0)))
world.tick()
walker.apply_control(carla.WalkerControl(direction=carla.Vector3D(1.0, 0.0, 0.0), speed=1.5))
for _ in range(200):
    world.tick()
front = walker.get_location().x
rear = parked.get_location().x - parked.bounding_box.extent.x
print("a walker walking into a parked car stops at %.2f m, the car's rear at %.2f m" % (front, rear))
check(rear - 1.0 < front < rear, "the walker stopped at the car: %.2f, rear %.2f" % (front, rear))
walker.destroy()
parked.destroy()
world.tick()

car = spawn(800.0)
walker = world.spawn_actor(walker_bp, carla.Transform(carla.Location(815.0, -1.75, 1.0)))
hits = {car.id: [], walker.id: []}
sensors = []
for a in (car, walker):
    s = world.spawn_actor(bl.find("sensor.other.collision"), carla.Transform(), attach_to=a)
    s.listen(lambda e, me=a.id: hits[me].append(e.other_actor.id))
    sensors.append(s)
world.tick()
# 8 m/s, held by the server's Ackermann controller (off the throttle the
# engine would brake it).
car.set_target_velocity(carla.Vector3D(8.0, 0.0, 0.0))
car.apply_ackermann_control(carla.VehicleAckermannControl(speed=8.0))
for _ in range(60):
    world.tick()
shoved = walker.get_location().x - 815.0
print("a car at 8 m/s into a standing walker: the walker shoved %.1f m, the car at %.1f m/s, sensors %s"
      % (shoved, speed(car), {k: sorted(set(v)) for k, v in hits.items()}))
check(hits[car.id] and set(hits[car.id]) == {walker.id}, "the car's sensor names the walker")
check(hits[walker.id] and set(hits[walker.id]) == {car.id}, "the walker's sensor names the car")
check(shoved > 5.0, "the walker was shoved %.1f m" % shoved)
for s in sensors:
    s.stop()
    s.destroy()
walker.destroy()
car.destroy()
world.tick()

# Props are bodies: still until they simulate physics, then they fall and
# are pushed; a still one stops a car.
props = bl.filter("static.prop.*")
check(len(props) == 96 and all(p.has_attribute("size") for p in props), "prop blueprints: %d" % len(props))
barrier = world.spawn_actor(bl.find("static.prop.streetbarrier"), carla.Transform(carla.Location(920.0, -1.75, 0.0), carla.Rotation(yaw=90.0)))
cone = world.spawn_actor(bl.find("static.prop.constructioncone"), carla.Transform(carla.Location(1020.0, -1.75, 3.0)))
for _ in range(20):
    world.tick()
floating = cone.get_location().z
cone.set_simulate_physics(True)
for _ in range(40):
    world.tick()
landed = cone.get_location().z
into_barrier, into_cone = spawn(900.0), spawn(1000.0)
hits = {into_barrier.id: [], into_cone.id: []}
sensors = []
for a in (into_barrier, into_cone):
    s = world.spawn_actor(bl.find("sensor.other.collision"), carla.Transform(), attach_to=a)
    s.listen(lambda e, me=a.id: hits[me].append(e.other_actor.id))
    sensors.append(s)
world.tick()
for a in (into_barrier, into_cone):
    a.set_target_velocity(carla.Vector3D(10.0, 0.0, 0.0))
for _ in range(60):
    world.tick()
pushed = cone.get_location().distance(carla.Location(1020.0, -1.75, 0.0))
held = barrier.get_location().x - 920.0
print("props: a still cone at %.2f m, simulated it lands at %.2f m and a car at 10 m/s pushes it %.1f m (the car %.1f m/s); "
      "a still barrier moves %.2f m, the car into it %.1f m/s"
      % (floating, landed, pushed, speed(into_cone), held, speed(into_barrier)))
check(abs(floating - 3.0) < 0.01 and abs(landed) < 0.1, "the cone floats, then falls: %.2f, %.2f" % (floating, landed))
check(pushed > 1.0 and set(hits[into_cone.id]) == {cone.id}, "the cone pushed %.1f m, hits %s" % (pushed, hits[into_cone.id]))
check(held == 0.0 and speed(into_barrier) < 1.0 and set(hits[into_barrier.id]) == {barrier.id},
      "the barrier held (%.2f m), the car at %.1f m/s, hits %s" % (held, speed(into_barrier), hits[into_barrier.id]))
for a in sensors + [into_barrier, into_cone, barrier, cone]:
    a.destroy()
world.tick()

# Put 200 m above the road, a car is spawned and falls.
car = world.try_spawn_actor(BP, carla.Transform(carla.Location(300.0, -1.75, 200.0)))
check(car is not None, "a car spawned 200 m up")
for _ in range(160):
    world.tick()
z = car.get_location().z
check(abs(z) < 0.1, "it fell to the road: z %.2f" % z)
car.destroy()


# Each blueprint its own mass: the same 6000 N s push gives an Audi A2
# about 6 m/s and a fire truck about 0.4 m/s (dv = J / m).
def pushed(blueprint, x):
    car = world.spawn_actor(bl.find(blueprint), carla.Transform(carla.Location(x, -1.75, 0.3)))
    for _ in range(10):
        world.tick()
    mass = car.get_physics_control().mass
    car.add_impulse(carla.Vector3D(6000.0, 0.0, 0.0))
    world.tick()
    dv = speed(car)
    car.destroy()
    return mass, dv


masses = {}
for name, x in (("vehicle.audi.a2", 500.0), ("vehicle.tesla.model3", 540.0),
                ("vehicle.carlamotors.firetruck", 580.0)):
    mass, dv = pushed(name, x)
    masses[name] = mass
    print("%s: %.0f kg, 6000 N s gives %.2f m/s (J/m %.2f)" % (name, mass, dv, 6000.0 / mass))
    check(abs(dv - 6000.0 / mass) < 0.2 * 6000.0 / mass, "%s: dv %.2f, J/m %.2f" % (name, dv, 6000.0 / mass))
check(masses["vehicle.audi.a2"] < masses["vehicle.tesla.model3"] < masses["vehicle.carlamotors.firetruck"],
      "blueprint masses: %s" % masses)
world.tick()


# The same commands twice on a fresh world: the same bits, tick after tick.
def history(ticks):
    global world
    world = fresh_world()
    cars = [spawn(10.0 + 12.0 * i, y=-1.75 if i % 2 else 1.75) for i in range(4)]
    out = []
    for t in range(ticks):
        for i, c in enumerate(cars):
            c.apply_control(carla.VehicleControl(throttle=0.5 + 0.1 * i, steer=0.2 * math.sin(t * 0.05 + i)))
        world.tick()
        snap = world.get_snapshot()
        out.append(state_hash([snap.find(c.id) for c in cars]))
    return out


one, two = history(1000), history(1000)
same = sum(a == b for a, b in zip(one, two))
print("two runs of 1000 ticks: %d ticks with identical snapshots" % same)
check(one == two, "the runs differ first at tick %d" % next(i for i, (a, b) in enumerate(zip(one, two)) if a != b)
      if one != two else "")

# Absurd input: refused by name or made safe; never a NaN in the world.
a, b = spawn(10.0), spawn(40.0)
pc = a.get_physics_control()
pc.forward_gears = [carla.GearPhysicsControl(ratio=-3.0, down_ratio=0.5, up_ratio=0.65)]
pc.final_ratio = 0.0
pc.torque_curve = [carla.Vector2D(0.0, 1e30), carla.Vector2D(1.0, -1e30)]
wheels = pc.wheels
for w in wheels:
    w.radius = 0.0
    w.tire_friction = -5.0
pc.wheels = wheels
a.apply_physics_control(pc)
# The client sends a physics control without waiting for an answer: a
# refused one (the server logs why) leaves the last one in place.
mass = a.get_physics_control().mass
for bad in (float("nan"), 0.0, -1500.0):
    pc = a.get_physics_control()
    pc.mass = bad
    a.apply_physics_control(pc)
    world.tick()
    check(a.get_physics_control().mass == mass, "a mass of %s was refused" % bad)
b.add_impulse(carla.Vector3D(1e30, 0.0, 1e30))
b.add_angular_impulse(carla.Vector3D(0.0, 1e30, 0.0))
a.set_target_velocity(carla.Vector3D(float("nan"), 0.0, 0.0))
a.apply_control(carla.VehicleControl(throttle=1.0, steer=1.0))
for _ in range(100):
    world.tick()
    for c in (a, b):
        t_, v = c.get_transform(), c.get_velocity()
        values = (t_.location.x, t_.location.y, t_.location.z, t_.rotation.yaw, v.x, v.y, v.z)
        check(all(math.isfinite(x) for x in values), "actor %d finite: %s %s" % (c.id, t_, v))
end_ok()
