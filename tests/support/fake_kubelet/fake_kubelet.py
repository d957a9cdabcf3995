#!/usr/bin/env python3
"""A fake kubelet for kapi's connect tests: the kubelet API paths kube-apiserver relays to
(pkg/kubelet/server/server.go: /containerLogs, /exec, /attach, /portForward, and anything nodes/proxy asks for).

Usage: fake_kubelet.py CERT KEY CLIENT_CA. HTTPS on 127.0.0.1 with the serving certificate, requiring a client
certificate signed by CLIENT_CA (what kapi presents from --kubelet-client-certificate). Prints the port it listens on
as its first line of stdout, then the port of a plain HTTP "pod" server on every address, which answers anything
with 200 "pod server saw <method> <target>" (for pods/proxy and services/proxy), then the port of a "kubelet"
that accepts connections and never answers. Standard library only.

- /containerLogs/<ns>/<pod>/<container>: five fixed lines "<container> line <n>"; tailLines keeps the last n;
  follow=true streams them a moment apart, then three more, then ends.
- /exec and /attach: WebSocket (v5.channel.k8s.io or v4, the channel byte first) or SPDY/3.1 remotecommand
  (X-Stream-Protocol-Version v4.channel.k8s.io); a container named "legacy" refuses the WebSocket upgrade with
  400, so clients fall back to SPDY. The command runs as: "echo ARGS" writes ARGS to stdout,
  "exit N" fails with exit code N, anything else writes its words to stdout. attach writes "attached".
- /portForward: SPDY/3.1 (portforward.k8s.io). A WebSocket upgrade is refused with 400, as a kubelet that does not
  speak the tunnelling protocol does, so clients fall back to SPDY. Each forwarded connection's data stream
  answers whatever it is sent with an HTTP/1.1 200 "forwarded through the kubelet" response and ends.
- anything else (nodes/proxy): 200 text/plain "kubelet saw <method> <path>".
"""
import base64
import hashlib
import json
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse
import zlib

WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC11B85"


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None, None, None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    length = int(headers.get("content-length", ["0"])[0] or 0)
    while len(rest) < length:
        chunk = conn.recv(4096)
        if not chunk:
            break
        rest += chunk
    return method, target, headers, rest


def respond(conn, status, body, content_type="text/plain", reason="OK"):
    body = body.encode() if isinstance(body, str) else body
    conn.sendall(("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                  % (status, reason, content_type, len(body))).encode() + body)


# --- container logs ---------------------------------------------------------------------------------------------

def serve_logs(conn, parts, query):
    container = parts[3] if len(parts) > 3 else ""
    lines = ["%s line %d\n" % (container, n) for n in range(1, 6)]
    if "tailLines" in query:
        tail = int(query["tailLines"][0])
        lines = lines[len(lines) - tail:] if tail > 0 else []
    follow = query.get("follow", ["false"])[0] == "true"
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    if follow:
        lines += ["%s followed %d\n" % (container, n) for n in range(1, 4)]

    def chunk(text):
        data = text.encode()
        conn.sendall(b"%x\r\n%s\r\n" % (len(data), data))

    for line in lines:
        chunk(line)
        if follow:
            time.sleep(0.1)
    conn.sendall(b"0\r\n\r\n")


# --- exec and attach --------------------------------------------------------------------------------------------

def run_command(kind, command):
    """(stdout text, exit code)."""
    if kind == "attach":
        return "attached\n", 0
    if command and command[0] == "exit":
        return "", int(command[1]) if len(command) > 1 else 1
    if command and command[0] == "echo":
        return " ".join(command[1:]) + "\n", 0
    return " ".join(command) + "\n", 0


def exit_status(code):
    if code == 0:
        return {"metadata": {}, "status": "Success"}
    return {"metadata": {}, "status": "Failure",
            "message": "command terminated with non-zero exit code: error executing command [...], exit code %d" % code,
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}


def websocket_frame(payload, opcode=2):
    header = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        header += bytes([n])
    elif n < 65536:
        header += bytes([126]) + struct.pack(">H", n)
    else:
        header += bytes([127]) + struct.pack(">Q", n)
    return header + payload


def accept_websocket(conn, headers, protocol):
    key = headers["sec-websocket-key"][0].encode()
    accept = base64.b64encode(hashlib.sha1(key + WEBSOCKET_GUID).digest()).decode()
    conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: %s\r\n\r\n" % (accept, protocol)).encode())


def serve_websocket_stream(conn, headers, kind, command):
    offered = [p.strip() for value in headers.get("sec-websocket-protocol", []) for p in value.split(",")]
    protocol = next((p for p in ("v5.channel.k8s.io", "v4.channel.k8s.io") if p in offered), None)
    if protocol is None:
        respond(conn, 400, "unsupported websocket protocols %s" % offered, reason="Bad Request")
        return
    accept_websocket(conn, headers, protocol)
    out, code = run_command(kind, command)
    if out:
        conn.sendall(websocket_frame(b"\x01" + out.encode()))
    conn.sendall(websocket_frame(b"\x03" + json.dumps(exit_status(code)).encode()))
    conn.sendall(websocket_frame(struct.pack(">H", 1000), opcode=8))
    time.sleep(0.2)


# --- SPDY/3.1 ---------------------------------------------------------------------------------------------------
# Frames: control frames start with 0x8003 (version 3) and a type; data frames with a 31-bit stream id. Name/value
# blocks are zlib-compressed with one context per direction. Ours is compressed without the SPDY dictionary (a
# zlib stream that does not announce one is read fine by Go's NewReaderDict); the client's is never decoded: its
# streams come in a known order (an error stream, then a data or stdout/stderr one).

SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY = 1, 2, 3, 4, 6, 7
FLAG_FIN = 1


class SpdySession:
    def __init__(self, conn, early):
        self.conn = conn
        self.buffer = early
        self.compressor = zlib.compressobj()
        self.lock = threading.Lock()

    def read_exactly(self, n):
        while len(self.buffer) < n:
            chunk = self.conn.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_frame(self):
        """('control', type, flags, payload) or ('data', stream id, flags, payload), None at the end."""
        head = self.read_exactly(8)
        if head is None:
            return None
        first, flags_length = struct.unpack(">II", head)
        flags, length = flags_length >> 24, flags_length & 0xFFFFFF
        payload = self.read_exactly(length) if length else b""
        if payload is None:
            return None
        if first & 0x80000000:
            return ("control", first & 0xFFFF, flags, payload)
        return ("data", first & 0x7FFFFFFF, flags, payload)

    def send(self, data):
        with self.lock:
            self.conn.sendall(data)

    def send_control(self, kind, flags, payload):
        self.send(struct.pack(">HHI", 0x8003, kind, (flags << 24) | len(payload)) + payload)

    def header_block(self, pairs):
        raw = struct.pack(">I", len(pairs))
        for name, value in pairs:
            raw += struct.pack(">I", len(name)) + name.encode() + struct.pack(">I", len(value)) + value.encode()
        with self.lock:
            return self.compressor.compress(raw) + self.compressor.flush(zlib.Z_SYNC_FLUSH)

    def reply(self, stream_id):
        block = self.header_block([])
        self.send_control(SYN_REPLY, 0, struct.pack(">I", stream_id) + block)

    def send_data(self, stream_id, data, fin=False):
        self.send(struct.pack(">II", stream_id, ((FLAG_FIN if fin else 0) << 24) | len(data)) + data)


def accept_spdy(conn, protocol):
    conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
                  "X-Stream-Protocol-Version: %s\r\n\r\n" % protocol).encode())


def serve_spdy_stream(conn, headers, early, kind, command, query):
    offered = [p.strip() for value in headers.get("x-stream-protocol-version", []) for p in value.split(",")]
    protocol = next((p for p in ("v4.channel.k8s.io",) if p in offered), None)
    if protocol is None:
        respond(conn, 403, "unsupported remotecommand protocols %s" % offered, reason="Forbidden")
        return
    accept_spdy(conn, protocol)
    session = SpdySession(conn, early)
    # The client opens the error stream, then stdin/stdout/stderr/resize as asked, each waiting for its reply.
    wanted = 1 + sum(1 for flag in ("stdin", "stdout", "stderr") if query.get(flag, ["0"])[0] in ("1", "true"))
    if query.get("tty", ["0"])[0] in ("1", "true"):
        wanted += 1
    streams = []
    while len(streams) < wanted:
        frame = session.read_frame()
        if frame is None:
            return
        if frame[0] == "control" and frame[1] == SYN_STREAM:
            stream_id = struct.unpack(">I", frame[3][:4])[0] & 0x7FFFFFFF
            streams.append(stream_id)
            session.reply(stream_id)
        elif frame[0] == "control" and frame[1] == PING:
            session.send_control(PING, 0, frame[3])
    error_stream = streams[0]
    stdout_stream = streams[2] if query.get("stdin", ["0"])[0] in ("1", "true") else streams[1]
    out, code = run_command(kind, command)
    if out:
        session.send_data(stdout_stream, out.encode())
    for stream_id in streams[1:]:
        session.send_data(stream_id, b"", fin=True)
    if code != 0:
        session.send_data(error_stream, json.dumps(exit_status(code)).encode())
    session.send_data(error_stream, b"", fin=True)
    time.sleep(0.3)


def serve_port_forward(conn, headers, early, query):
    offered = [p.strip() for value in headers.get("x-stream-protocol-version", []) for p in value.split(",")]
    if "portforward.k8s.io" not in offered:
        respond(conn, 400, "unable to upgrade: the port-forward protocol is SPDY/3.1 portforward.k8s.io", reason="Bad Request")
        return
    accept_spdy(conn, "portforward.k8s.io")
    session = SpdySession(conn, early)
    pending_error = None
    roles = {}  # stream id -> "error" or "data"
    while True:
        frame = session.read_frame()
        if frame is None:
            return
        kind, code, flags, payload = frame
        if kind == "control":
            if code == SYN_STREAM:
                stream_id = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
                # Each forwarded connection opens its error stream, then its data stream.
                if pending_error is None:
                    roles[stream_id] = "error"
                    pending_error = stream_id
                else:
                    roles[stream_id] = "data"
                    pending_error = None
                session.reply(stream_id)
            elif code == PING:
                session.send_control(PING, 0, payload)
            elif code == GOAWAY:
                return
            continue
        stream_id = code
        if roles.get(stream_id) == "data" and payload:
            body = "forwarded through the kubelet\n"
            answer = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                      % (len(body), body)).encode()
            session.send_data(stream_id, answer, fin=True)
            # The client waits for its error stream to end too: no error, so it ends empty.
            error_streams = [s for s, role in roles.items() if role == "error" and s < stream_id]
            if error_streams:
                session.send_data(max(error_streams), b"", fin=True)


# --- dispatch ---------------------------------------------------------------------------------------------------

def serve(conn):
    try:
        method, target, headers, early = read_head(conn)
        if method is None:
            return
        url = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        parts = [urllib.parse.unquote(p) for p in url.path.split("/")[1:]]
        upgrade = " ".join(headers.get("upgrade", [])).lower()
        if parts[0] == "containerLogs":
            serve_logs(conn, parts, query)
        elif parts[0] in ("exec", "attach"):
            command = query.get("command", [])
            legacy = len(parts) > 3 and parts[3] == "legacy"
            if "websocket" in upgrade and legacy:
                # A kubelet without the WebSocket protocols: clients fall back to SPDY.
                respond(conn, 400, "websocket remotecommand is not served here", reason="Bad Request")
            elif "websocket" in upgrade:
                serve_websocket_stream(conn, headers, parts[0], command)
            elif "spdy" in upgrade:
                serve_spdy_stream(conn, headers, early, parts[0], command, query)
            else:
                respond(conn, 400, "Upgrade request required", reason="Bad Request")
        elif parts[0] == "portForward":
            if "spdy" in upgrade:
                serve_port_forward(conn, headers, early, query)
            else:
                respond(conn, 400, "websocket port-forward is not served here", reason="Bad Request")
        else:
            respond(conn, 200, "kubelet saw %s %s\n" % (method, target))
    except (OSError, ValueError, IndexError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    cert, key, client_ca = sys.argv[1], sys.argv[2], sys.argv[3]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.load_verify_locations(client_ca)
    context.verify_mode = ssl.CERT_REQUIRED
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    def handshake_and_serve(raw):
        try:
            conn = context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        serve(conn)

    pod_server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    pod_server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    pod_server.bind(("0.0.0.0", 0))
    pod_server.listen(64)
    print(pod_server.getsockname()[1], flush=True)

    def serve_pod(conn):
        try:
            method, target, _, _ = read_head(conn)
            if method is not None:
                respond(conn, 200, "pod server saw %s %s\n" % (method, target))
        except OSError:
            pass
        finally:
            conn.close()

    def pod_loop():
        while True:
            conn, _ = pod_server.accept()
            threading.Thread(target=serve_pod, args=(conn,), daemon=True).start()

    threading.Thread(target=pod_loop, daemon=True).start()

    # A kubelet that hangs: it accepts connections and never says a word.
    silent = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    print(silent.getsockname()[1], flush=True)
    held = []

    def silent_loop():
        while True:
            held.append(silent.accept()[0])

    threading.Thread(target=silent_loop, daemon=True).start()
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=handshake_and_serve, args=(raw,), daemon=True).start()


if __name__ == "__main__":
    main()
