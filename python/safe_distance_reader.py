"""Reads a `sensor.other.safe_distance` sensor from Python, by actor id.

The stock `carla` package cannot decode this sensor (its registry has no
such type), so the server gives stock clients the sensor as a plain actor
without a stream. This module needs nothing but the standard library: it
asks the server's RPC port for the sensor's stream token
(`get_actor_stream_token`, a call of this project's server, not CARLA's),
subscribes to the stream and yields one `(frame, timestamp, ids)` per
message, `ids` being the vehicles inside the sensor's box.

    from safe_distance_reader import read
    for frame, timestamp, ids in read("127.0.0.1", 2000, sensor.id):
        print(frame, ids)

or, from a shell:

    python3 python/safe_distance_reader.py [--host H] [--port 2000] ACTOR_ID [--messages N]
"""
import argparse
import socket
import struct

HEADER_SIZE = 48  # the 0.9 sensor header: type, frame, timestamp, transform
SAFE_DISTANCE_TYPE = 22


def _pack(value):
    """The little msgpack this needs: ints, bools, strings, lists."""
    if value is True or value is False:
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        if 0 <= value < 128:
            return bytes([value])
        return b"\xcf" + struct.pack(">Q", value)
    if isinstance(value, str):
        data = value.encode()
        return bytes([0xA0 | len(data)]) + data if len(data) < 32 else b"\xd9" + bytes([len(data)]) + data
    if isinstance(value, list):
        return bytes([0x90 | len(value)]) + b"".join(_pack(v) for v in value)
    raise TypeError(value)


class _Reader:
    def __init__(self, sock):
        self.sock = sock

    def exactly(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            out += chunk
        return out

    def value(self):
        b = self.exactly(1)[0]
        if b < 0x80:
            return b
        if 0x90 <= b <= 0x9F:
            return [self.value() for _ in range(b & 0x0F)]
        if 0xA0 <= b <= 0xBF:
            return self.exactly(b & 0x1F).decode()
        if b >= 0xE0:
            return b - 0x100
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in simple:
            return simple[b]
        sized = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}
        if b in sized:
            n = int.from_bytes(self.exactly(sized[b]), "big")
            data = self.exactly(n)
            return data if b <= 0xC6 else data.decode()
        ints = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
                0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
        if b in ints:
            fmt = ints[b]
            return struct.unpack(fmt, self.exactly(struct.calcsize(fmt)))[0]
        if b in (0xDC, 0xDD):
            n = int.from_bytes(self.exactly(2 if b == 0xDC else 4), "big")
            return [self.value() for _ in range(n)]
        raise ValueError("unexpected msgpack byte 0x%02x" % b)


def stream_token(host, port, actor_id, timeout=10.0):
    """The 24-byte stream token of sensor `actor_id` (RuntimeError if the
    server refuses: no such actor, not a sensor)."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(_pack([0, 1, "get_actor_stream_token", [[False], actor_id]]))
        reply = _Reader(sock).value()
    if reply[2] is not None:
        raise RuntimeError("server: %s" % (reply[2],))
    (result,) = reply[3]
    if result[0] != 1:
        raise RuntimeError(result[1][0])
    return result[1]


def read(host, port, actor_id, timeout=10.0):
    """Yields `(frame, timestamp, [vehicle ids])` per message of the sensor
    until the stream ends (the sensor was destroyed)."""
    token = stream_token(host, port, actor_id, timeout)
    stream_id, stream_port = struct.unpack_from("<IH", token, 0)
    with socket.create_connection((host, stream_port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(struct.pack("<I", stream_id))
        r = _Reader(sock)
        while True:
            try:
                (size,) = struct.unpack("<I", r.exactly(4))
            except ConnectionError:
                return
            message = r.exactly(size)
            kind, frame, timestamp = struct.unpack_from("<QQd", message, 0)
            if kind != SAFE_DISTANCE_TYPE:
                raise ValueError("stream of sensor type %d, not safe distance" % kind)
            payload = message[HEADER_SIZE:]
            ids = list(struct.unpack("<%dI" % (len(payload) // 4), payload))
            yield frame, timestamp, ids


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("actor_id", type=int)
    args = parser.parse_args()
    for n, (frame, timestamp, ids) in enumerate(read(args.host, args.port, args.actor_id)):
        print("frame %d (%.3f s): %s" % (frame, timestamp, ids), flush=True)
        if n + 1 >= args.messages:
            break


if __name__ == "__main__":
    main()
