#!/usr/bin/env python3
"""A fault-injecting HTTP/1.1 proxy for Kringle's soak test (Python standard library only).

Listens on 127.0.0.1 and forwards every connection to an upstream server on 127.0.0.1 (nginx,
in the soak). It reads the upstream's responses far enough to know where each one ends on a
keep-alive connection (RFC 9112 §6.3: HEAD and 1xx/204/304 have no body; else chunked; else
Content-Length; else until the connection closes), so it spoils responses one by one: a
share `rate` of them (22% by default), drawn from a seeded random generator, is

  reset    head and half the body, then a reset (SO_LINGER 0, then close: RST)
  head     the head only, then close (FIN)
  fin      head and half the body, then close (FIN)
  stall    nothing: the response is held and the connection left open, until the client
           closes it (or --stall-seconds pass)
  garbage  the status line replaced with junk, the rest forwarded as it came
  delay    the whole response, 20-200 ms late

The faults are drawn in the order responses arrive; with one seed the same sequence of faults
comes back (which request meets which depends on the clients' timing).

It prints one line, `listening PORT control PORT`, to standard output, then logs to standard
error only. Commands, one per line, come on the control port (one TCP connection per command
or several; each gets one answer line) and, when standard input is a pipe or a terminal, on
standard input (the proxy then stops at its end-of-file):

  faults on|off       spoil responses or forward them all as they come
  rate 0.22           the share of responses spoiled
  mix reset=1,head=1  relative weights of the kinds (those not named keep theirs)
  seed 7              restart the fault sequence from a seed
  outage 3            for 3 s: reset every open connection now and every new one
  outage on|off       the same without an end, or end it now
  stats               one line of JSON: responses, spoiled by kind, connections, outage resets
  reset-stats         zero the counters
  quit                stop

It stops on SIGTERM or SIGINT, at end-of-file on standard input (see above), and when the
process that started it exits (its parent process identifier changes).
"""

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import stat
import struct
import sys

LOOPBACK = "127.0.0.1"
KINDS = ("reset", "head", "fin", "stall", "garbage", "delay")
GARBAGE_STATUS_LINE = b"\x16\x03\x01 JUNK/9.9 not-a-status \xff\xfe\r\n"
# Responses are held whole before they are forwarded: the proxy is made for small API
# responses. A larger one fails its connection rather than fill the memory.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


class Framing:
    """How the end of a message is found (RFC 9112 §6.3)."""

    NONE, LENGTH, CHUNKED, UNTIL_CLOSE = range(4)


def parse_head(head):
    """The first line and the header fields (lower-cased names) of a message head."""
    lines = head.split(b"\r\n")
    fields = {}
    for line in lines[1:]:
        name, separator, value = line.partition(b":")
        if separator:
            fields.setdefault(name.strip().lower(), []).append(value.strip())
    return lines[0], fields


def body_framing(fields, is_request, status=None, method=None):
    """The framing of a message's body, and its length for Content-Length framing."""
    if not is_request:
        if method == b"HEAD" or status in (204, 304) or (status is not None and 100 <= status < 200):
            return Framing.NONE, 0
    codings = b",".join(fields.get(b"transfer-encoding", [])).lower()
    if codings:
        # RFC 9112 §6.3 ¶4: chunked last means chunked; a response otherwise reads to the close.
        if codings.replace(b" ", b"").split(b",")[-1] == b"chunked":
            return Framing.CHUNKED, 0
        return (Framing.NONE, 0) if is_request else (Framing.UNTIL_CLOSE, 0)
    if b"content-length" in fields:
        return Framing.LENGTH, int(fields[b"content-length"][0])
    return (Framing.NONE, 0) if is_request else (Framing.UNTIL_CLOSE, 0)


async def read_body(reader, framing, length):
    """The body's raw bytes as they came on the wire (chunk framing included)."""
    if framing == Framing.NONE:
        return b""
    if framing == Framing.LENGTH:
        if length > MAX_RESPONSE_BYTES:
            raise ValueError("body too large for the proxy")
        return await reader.readexactly(length)
    if framing == Framing.UNTIL_CLOSE:
        body = await reader.read(MAX_RESPONSE_BYTES + 1)
        while not reader.at_eof() and len(body) <= MAX_RESPONSE_BYTES:
            body += await reader.read(MAX_RESPONSE_BYTES + 1 - len(body))
        if len(body) > MAX_RESPONSE_BYTES:
            raise ValueError("body too large for the proxy")
        return body
    parts = []
    while True:  # RFC 9112 §7.1: size line, data, CRLF; a zero size, then trailers, then CRLF
        size_line = await reader.readuntil(b"\r\n")
        parts.append(size_line)
        size = int(size_line.split(b";")[0].strip(), 16)
        if size == 0:
            while True:
                trailer = await reader.readuntil(b"\r\n")
                parts.append(trailer)
                if trailer == b"\r\n":
                    return b"".join(parts)
        parts.append(await reader.readexactly(size + 2))
        if sum(len(part) for part in parts) > MAX_RESPONSE_BYTES:
            raise ValueError("body too large for the proxy")


def reset(writer):
    """Closes a connection with a reset (RST) rather than a FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    writer.transport.abort()


class Connection:
    """One client connection and its upstream connection."""

    def __init__(self, client_writer, upstream_writer):
        self.client_writer = client_writer
        self.upstream_writer = upstream_writer
        self.methods = []  # of the requests forwarded and not yet answered, oldest first
        self.client_closed = asyncio.Event()
        self.tasks = []

    def close(self, with_reset=False):
        for task in self.tasks:
            if task is not asyncio.current_task():
                task.cancel()
        if with_reset:
            reset(self.client_writer)
        else:
            self.client_writer.close()
        self.upstream_writer.transport.abort()


class ChaosProxy:
    def __init__(self, options):
        self.upstream_port = options.upstream_port
        self.stall_seconds = options.stall_seconds
        self.faults_on = options.faults == "on"
        self.rate = options.rate
        self.weights = dict.fromkeys(KINDS, 1.0)
        self.apply_mix(options.mix)
        self.rng = random.Random(options.seed)
        self.outage_until = None  # loop time, or math.inf for an outage without an end
        self.connections = set()
        self.stopped = asyncio.Event()
        self.verbose = options.verbose
        self.reset_stats()

    # -- decisions ---------------------------------------------------------------------------

    def apply_mix(self, text):
        for item in filter(None, text.split(",")):
            name, _, weight = item.partition("=")
            if name not in self.weights:
                raise ValueError(f"unknown fault kind {name!r} (kinds: {', '.join(KINDS)})")
            self.weights[name] = float(weight)

    def draw_fault(self):
        """The fault for the next response, or None; both drawn from the seeded generator."""
        if not self.faults_on:
            return None
        if self.rng.random() >= self.rate:
            return None
        kinds = [kind for kind in KINDS if self.weights[kind] > 0]
        return self.rng.choices(kinds, weights=[self.weights[kind] for kind in kinds])[0] if kinds else None

    def in_outage(self):
        if self.outage_until is None:
            return False
        if asyncio.get_running_loop().time() < self.outage_until:
            return True
        self.outage_until = None
        return False

    def reset_stats(self):
        self.stats = {"connections": 0, "responses": 0, "spoiled": dict.fromkeys(KINDS, 0), "outage_resets": 0}

    # -- connections -------------------------------------------------------------------------

    async def accept(self, client_reader, client_writer):
        if self.in_outage():
            self.stats["outage_resets"] += 1
            reset(client_writer)
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                LOOPBACK, self.upstream_port, limit=MAX_RESPONSE_BYTES
            )
        except OSError:
            reset(client_writer)
            return
        self.stats["connections"] += 1
        connection = Connection(client_writer, upstream_writer)
        self.connections.add(connection)
        connection.tasks = [
            asyncio.create_task(self.forward_requests(connection, client_reader)),
            asyncio.create_task(self.forward_responses(connection, upstream_reader)),
        ]
        try:
            await asyncio.gather(*connection.tasks, return_exceptions=True)
        finally:
            self.connections.discard(connection)
            connection.close()

    async def forward_requests(self, connection, reader):
        """Client to upstream, a request at a time, noting each one's method."""
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, fields = parse_head(head)
                framing, length = body_framing(fields, is_request=True)
                body = await read_body(reader, framing, length)
                connection.methods.append(request_line.split(b" ")[0])
                connection.upstream_writer.write(head + body)
                await connection.upstream_writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            pass
        finally:
            connection.client_closed.set()
            if connection.upstream_writer.can_write_eof():
                try:
                    connection.upstream_writer.write_eof()
                except OSError:
                    pass

    async def forward_responses(self, connection, reader):
        """Upstream to client, a response at a time, spoiling some."""
        writer = connection.client_writer
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break  # the upstream closed between responses
                status_line, fields = parse_head(head)
                status = int(status_line.split(b" ")[1])
                informational = 100 <= status < 200
                method = connection.methods[0] if connection.methods else b"GET"
                framing, length = body_framing(fields, is_request=False, status=status, method=method)
                body = await read_body(reader, framing, length)
                if informational:
                    writer.write(head)
                    continue
                if connection.methods:
                    connection.methods.pop(0)
                self.stats["responses"] += 1
                fault = self.draw_fault()
                if fault is None:
                    writer.write(head + body)
                    await writer.drain()
                    if framing == Framing.UNTIL_CLOSE:
                        break
                    continue
                self.stats["spoiled"][fault] += 1
                if self.verbose:
                    print(f"chaos_proxy: {fault}", file=sys.stderr)
                if not await self.spoil(connection, fault, head, body):
                    return
                if framing == Framing.UNTIL_CLOSE:
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError, IndexError):
            pass
        connection.close()

    async def spoil(self, connection, fault, head, body):
        """Sends a response spoiled by `fault`; whether the connection goes on."""
        writer = connection.client_writer
        half = body[: max(1, len(body) // 2)] if body else b""
        if fault == "delay":
            await asyncio.sleep(self.rng.uniform(0.02, 0.2))
            writer.write(head + body)
            await writer.drain()
            return True
        if fault == "garbage":
            writer.write(GARBAGE_STATUS_LINE + head.split(b"\r\n", 1)[1] + body)
            await writer.drain()
            return True
        if fault == "stall":
            try:
                await asyncio.wait_for(connection.client_closed.wait(), self.stall_seconds)
            except asyncio.TimeoutError:
                pass
            connection.close()
            return False
        writer.write(head if fault == "head" else head + half)
        await writer.drain()
        # Let the client read what was sent before the connection ends.
        await asyncio.sleep(0.01)
        connection.close(with_reset=fault == "reset")
        return False

    # -- control -----------------------------------------------------------------------------

    def command(self, line):
        """Runs one control command; returns the answer line."""
        words = line.split()
        if not words:
            return "error empty command"
        verb, arguments = words[0], words[1:]
        try:
            if verb == "faults" and arguments in (["on"], ["off"]):
                self.faults_on = arguments[0] == "on"
            elif verb == "rate" and len(arguments) == 1:
                rate = float(arguments[0])
                if not 0 <= rate <= 1:
                    return "error rate is a share from 0 to 1"
                self.rate = rate
            elif verb == "mix" and len(arguments) == 1:
                self.apply_mix(arguments[0])
            elif verb == "seed" and len(arguments) == 1:
                self.rng = random.Random(int(arguments[0]))
            elif verb == "outage" and len(arguments) == 1:
                self.start_outage(arguments[0])
            elif verb == "stats":
                return json.dumps(self.stats, separators=(",", ":"))
            elif verb == "reset-stats":
                self.reset_stats()
            elif verb == "quit":
                self.stopped.set()
            else:
                return f"error unknown command {line.strip()!r}"
        except ValueError as error:
            return f"error {error}"
        return "ok"

    def start_outage(self, argument):
        if argument == "off":
            self.outage_until = None
            return
        seconds = float("inf") if argument == "on" else float(argument)
        self.outage_until = asyncio.get_running_loop().time() + seconds
        for connection in list(self.connections):
            self.stats["outage_resets"] += 1
            connection.close(with_reset=True)

    async def serve_control(self, reader, writer):
        try:
            while line := await reader.readline():
                writer.write((self.command(line.decode(errors="replace")) + "\n").encode())
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def read_standard_input(self):
        """Commands from standard input; its end stops the proxy."""
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            print(self.command(line), file=sys.stderr, flush=True)
        self.stopped.set()

    async def watch_parent(self):
        parent = os.getppid()
        while os.getppid() == parent:
            await asyncio.sleep(0.5)
        self.stopped.set()


def standard_input_is_live():
    """Whether standard input can bring commands and an end: a pipe or a terminal, not /dev/null."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(0)


async def main(options):
    proxy = ChaosProxy(options)
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, proxy.stopped.set)
    server = await asyncio.start_server(proxy.accept, LOOPBACK, options.port, reuse_address=True)
    control = await asyncio.start_server(proxy.serve_control, LOOPBACK, options.control_port, reuse_address=True)
    port = server.sockets[0].getsockname()[1]
    control_port = control.sockets[0].getsockname()[1]
    print(f"listening {port} control {control_port}", flush=True)
    watchers = [asyncio.create_task(proxy.watch_parent())]
    if standard_input_is_live():
        watchers.append(asyncio.create_task(proxy.read_standard_input()))
    await proxy.stopped.wait()
    server.close()
    control.close()
    for connection in list(proxy.connections):
        connection.close()
    print(f"chaos_proxy: stopped; {json.dumps(proxy.stats)}", file=sys.stderr, flush=True)
    # Not awaited: a pending read of standard input cannot be cancelled.
    os._exit(0)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream-port", type=int, required=True, help="the server's port on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="where to listen (0: a free port, printed)")
    parser.add_argument("--control-port", type=int, default=0, help="the control port (0: a free port, printed)")
    parser.add_argument("--rate", type=float, default=0.22, help="share of responses spoiled (default 0.22)")
    parser.add_argument("--faults", choices=("on", "off"), default="on")
    parser.add_argument("--mix", default="", help="weights, such as reset=1,head=1,fin=1,stall=1,garbage=1,delay=1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stall-seconds", type=float, default=60, help="the longest a stalled response is held")
    parser.add_argument("--verbose", action="store_true", help="log every fault to standard error")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_arguments()))
