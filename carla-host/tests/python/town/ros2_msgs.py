"""ROS 2's message definitions as Eclipse Cyclone DDS's Python binding
(`cyclonedds`) declares IDL types, with the DDS type names ROS 2 gives
them (`<package>::msg::dds_::<Message>_`): what a ROS 2 node would read.
Used by ros2.py, ros2_abuse.py and ros2_flood.py.
"""
from dataclasses import dataclass

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float32, float64, int32, sequence, uint8, uint16, uint32


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class String(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    data: str


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time
    frame_id: str


@dataclass
class Image(IdlStruct, typename="sensor_msgs::msg::dds_::Image_"):
    header: Header
    height: uint32
    width: uint32
    encoding: str
    is_bigendian: uint8
    step: uint32
    data: sequence[uint8]


@dataclass
class RegionOfInterest(IdlStruct, typename="sensor_msgs::msg::dds_::RegionOfInterest_"):
    x_offset: uint32
    y_offset: uint32
    height: uint32
    width: uint32
    do_rectify: bool


@dataclass
class CameraInfo(IdlStruct, typename="sensor_msgs::msg::dds_::CameraInfo_"):
    header: Header
    height: uint32
    width: uint32
    distortion_model: str
    d: sequence[float64]
    k: array[float64, 9]
    r: array[float64, 9]
    p: array[float64, 12]
    binning_x: uint32
    binning_y: uint32
    roi: RegionOfInterest


@dataclass
class PointField(IdlStruct, typename="sensor_msgs::msg::dds_::PointField_"):
    name: str
    offset: uint32
    datatype: uint8
    count: uint32


@dataclass
class PointCloud2(IdlStruct, typename="sensor_msgs::msg::dds_::PointCloud2_"):
    header: Header
    height: uint32
    width: uint32
    fields: sequence[PointField]
    is_bigendian: bool
    point_step: uint32
    row_step: uint32
    data: sequence[uint8]
    is_dense: bool


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64
    y: float64
    z: float64
    w: float64


@dataclass
class Point(IdlStruct, typename="geometry_msgs::msg::dds_::Point_"):
    x: float64
    y: float64
    z: float64


@dataclass
class Pose(IdlStruct, typename="geometry_msgs::msg::dds_::Pose_"):
    position: Point
    orientation: Quaternion


@dataclass
class PoseWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovariance_"):
    pose: Pose
    covariance: array[float64, 36]


@dataclass
class Twist(IdlStruct, typename="geometry_msgs::msg::dds_::Twist_"):
    linear: Vector3
    angular: Vector3


@dataclass
class TwistWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::TwistWithCovariance_"):
    twist: Twist
    covariance: array[float64, 36]


@dataclass
class Odometry(IdlStruct, typename="nav_msgs::msg::dds_::Odometry_"):
    header: Header
    child_frame_id: str
    pose: PoseWithCovariance
    twist: TwistWithCovariance


@dataclass
class Imu(IdlStruct, typename="sensor_msgs::msg::dds_::Imu_"):
    header: Header
    orientation: Quaternion
    orientation_covariance: array[float64, 9]
    angular_velocity: Vector3
    angular_velocity_covariance: array[float64, 9]
    linear_acceleration: Vector3
    linear_acceleration_covariance: array[float64, 9]


@dataclass
class NavSatStatus(IdlStruct, typename="sensor_msgs::msg::dds_::NavSatStatus_"):
    status: uint8
    service: uint16


@dataclass
class NavSatFix(IdlStruct, typename="sensor_msgs::msg::dds_::NavSatFix_"):
    header: Header
    status: NavSatStatus
    latitude: float64
    longitude: float64
    altitude: float64
    position_covariance: array[float64, 9]
    position_covariance_type: uint8


@dataclass
class Clock(IdlStruct, typename="rosgraph_msgs::msg::dds_::Clock_"):
    clock: Time


@dataclass
class Transform(IdlStruct, typename="geometry_msgs::msg::dds_::Transform_"):
    translation: Vector3
    rotation: Quaternion


@dataclass
class TransformStamped(IdlStruct, typename="geometry_msgs::msg::dds_::TransformStamped_"):
    header: Header
    child_frame_id: str
    transform: Transform


@dataclass
class TFMessage(IdlStruct, typename="tf2_msgs::msg::dds_::TFMessage_"):
    transforms: sequence[TransformStamped]


@dataclass
class CarlaEgoVehicleControl(IdlStruct, typename="carla_msgs::msg::dds_::CarlaEgoVehicleControl_"):
    header: Header
    throttle: float32
    steer: float32
    brake: float32
    hand_brake: bool
    reverse: bool
    gear: int32
    manual_gear_shift: bool


@dataclass
class Accel(IdlStruct, typename="geometry_msgs::msg::dds_::Accel_"):
    linear: Vector3
    angular: Vector3


@dataclass
class CarlaEgoVehicleStatus(IdlStruct, typename="carla_msgs::msg::dds_::CarlaEgoVehicleStatus_"):
    header: Header
    velocity: float32
    acceleration: Accel
    orientation: Quaternion
    control: CarlaEgoVehicleControl


@dataclass
class CarlaTrafficLightStatus(IdlStruct, typename="carla_msgs::msg::dds_::CarlaTrafficLightStatus_"):
    id: uint32
    state: uint8


@dataclass
class CarlaTrafficLightStatusList(IdlStruct, typename="carla_msgs::msg::dds_::CarlaTrafficLightStatusList_"):
    traffic_lights: sequence[CarlaTrafficLightStatus]


@dataclass
class CarlaCollisionEvent(IdlStruct, typename="carla_msgs::msg::dds_::CarlaCollisionEvent_"):
    header: Header
    other_actor_id: uint32
    normal_impulse: Vector3


@dataclass
class AckermannDrive(IdlStruct, typename="ackermann_msgs::msg::dds_::AckermannDrive_"):
    steering_angle: float32
    steering_angle_velocity: float32
    speed: float32
    acceleration: float32
    jerk: float32


@dataclass
class AckermannDriveStamped(IdlStruct, typename="ackermann_msgs::msg::dds_::AckermannDriveStamped_"):
    header: Header
    drive: AckermannDrive
