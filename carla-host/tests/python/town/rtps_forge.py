"""Hand-made RTPS datagrams for the ROS 2 abuse test (ros2_abuse.py):
what a DDS peer that crashed leaves behind. Written from the RTPS 2.3
specification (message and DATA layouts, 9.4; parameter ids, 9.6.2).
"""
import os
import struct

# Parameter ids (RTPS 2.3, table 9.12).
PID_SENTINEL = 0x0001
PID_PARTICIPANT_LEASE_DURATION = 0x0002
PID_TOPIC_NAME = 0x0005
PID_TYPE_NAME = 0x0007
PID_PROTOCOL_VERSION = 0x0015
PID_VENDORID = 0x0016
PID_RELIABILITY = 0x001A
PID_DEFAULT_UNICAST_LOCATOR = 0x0031
PID_METATRAFFIC_UNICAST_LOCATOR = 0x0032
PID_PARTICIPANT_GUID = 0x0050
PID_BUILTIN_ENDPOINT_SET = 0x0058
PID_ENDPOINT_GUID = 0x005A

# Built-in endpoints (entity ids, 9.3.1.2).
SPDP_READER, SPDP_WRITER = b"\x00\x01\x00\xc7", b"\x00\x01\x00\xc2"
SUBSCRIPTIONS_READER, SUBSCRIPTIONS_WRITER = b"\x00\x00\x04\xc7", b"\x00\x00\x04\xc2"


def _cdr_string(text):
    raw = text.encode() + b"\0"
    return struct.pack("<I", len(raw)) + raw


def _param(pid, value):
    value += b"\0" * (-len(value) % 4)
    return struct.pack("<HH", pid, len(value)) + value


def _udp_locator(port):
    # kind 1 (UDPv4), port, 16 address bytes ending in 127.0.0.1
    return struct.pack("<iI", 1, port) + bytes(12) + bytes([127, 0, 0, 1])


def _data(reader_id, writer_id, params):
    """A DATA submessage (little-endian, serialized data, sequence number
    1) whose payload is a PL_CDR_LE parameter list."""
    payload = b"\x00\x03\x00\x00" + params + struct.pack("<HH", PID_SENTINEL, 0)
    body = (struct.pack("<HH", 0, 16) + reader_id + writer_id
            + struct.pack("<iI", 0, 1) + payload)
    return struct.pack("<BBH", 0x15, 0x05, len(body)) + body


def _participant(prefix, port, lease):
    """A participant's SPDP parameters: guid `prefix`, metatraffic and
    default locators at 127.0.0.1:`port`, a lease of `lease` (seconds,
    fraction)."""
    return b"".join([
        _param(PID_PROTOCOL_VERSION, b"\x02\x03"),
        _param(PID_VENDORID, b"\x01\x10"),
        _param(PID_PARTICIPANT_GUID, prefix + b"\x00\x00\x01\xc1"),
        _param(PID_METATRAFFIC_UNICAST_LOCATOR, _udp_locator(port)),
        _param(PID_DEFAULT_UNICAST_LOCATOR, _udp_locator(port)),
        # participant, publications and subscriptions announcers/detectors
        _param(PID_BUILTIN_ENDPOINT_SET, struct.pack("<I", 0x3F)),
        _param(PID_PARTICIPANT_LEASE_DURATION, struct.pack("<iI", *lease)),
    ])


def _header(prefix):
    return b"RTPS\x02\x03\x01\x10" + prefix


def announcement(prefix, port, lease_s):
    """One participant's SPDP announcement: guid `prefix`, locators at
    127.0.0.1:`port`, a lease of `lease_s` seconds."""
    return _header(prefix) + _data(SPDP_READER, SPDP_WRITER, _participant(prefix, port, (lease_s, 0)))


def crashed_peer(topic, type_name, dead_port):
    """Two datagrams: a participant announcing itself with an endless lease
    (so no lease ever ends it), then its reliable reader of `topic`, at
    `dead_port`, where nothing will ever acknowledge a sample."""
    prefix = os.urandom(12)
    participant = _participant(prefix, dead_port, (0x7FFFFFFF, 0xFFFFFFFF))
    reader = b"".join([
        _param(PID_ENDPOINT_GUID, prefix + b"\x00\x00\x01\x04"),
        _param(PID_TOPIC_NAME, _cdr_string(topic)),
        _param(PID_TYPE_NAME, _cdr_string(type_name)),
        # RELIABLE, max blocking time 1 s
        _param(PID_RELIABILITY, struct.pack("<IiI", 2, 1, 0)),
    ])
    return [_header(prefix) + _data(SPDP_READER, SPDP_WRITER, participant),
            _header(prefix) + _data(SUBSCRIPTIONS_READER, SUBSCRIPTIONS_WRITER, reader)]
