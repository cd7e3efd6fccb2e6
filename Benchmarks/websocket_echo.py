#!/usr/bin/env python3
"""The Python side of `kringle-benchmarks websockets` (Benchmarks/WebSocketBenchmark.swift).

    websocket_echo.py serve [--compression on|off]
        A WebSocket echo server on 127.0.0.1 (websockets' asyncio server, one thread): prints
        `listening PORT`, echoes every message back as it came, and serves until its parent
        process exits (a pidfd on Linux) or it gets SIGTERM.

    websocket_echo.py measure PORT COUNT [--compression on|off] [--warm-up 200] [--echoes 2000]
        The same steps as the Kringle side, with websockets' asyncio client, in this fresh
        process: one connection answers --warm-up echoes, then --echoes timed ones (alone);
        VmRSS and descriptors are read; COUNT - 1 more connections are opened 100 at a time,
        each with one echo, and left idle for 2 s; VmRSS and descriptors again; the timed
        echoes on the first connection again (with the others idle); then all COUNT are
        closed at once. Prints one JSON object.

Both raise their own descriptor limit to the hard limit. Every echo sends 32 bytes of text
(a counter, so no two messages are the same) and waits for them to come back.
"""
import argparse
import asyncio
import gc
import itertools
import json
import os
import resource
import signal
import sys
import time

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

BATCH = 100
IDLE_SECONDS = 2.0
NUMBERS = itertools.count()


def raise_descriptor_limit():
    """Sets the soft RLIMIT_NOFILE to the hard one; returns it."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def message():
    """32 bytes of text, a different one each time."""
    return f"echo {next(NUMBERS):010d} kringle-bench..."


def process_status():
    """VmRSS in KiB and open descriptors of this process."""
    resident = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                resident = int(line.split()[1])
    return resident, len(os.listdir("/proc/self/fd")) - 1


async def serve_echo(compression):
    async def echo(connection):
        try:
            async for received in connection:
                await connection.send(received)
        except Exception:  # a client that vanished: nothing to echo to
            pass

    stop = asyncio.get_running_loop().create_future()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    if hasattr(os, "pidfd_open"):  # readable once the parent has exited
        parent = os.pidfd_open(os.getppid())
        loop.add_reader(parent, lambda: stop.done() or stop.set_result(None))
    async with serve(
        echo, "127.0.0.1", 0, compression="deflate" if compression else None, ping_interval=None,
        max_size=None, backlog=1024,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"listening {port}", flush=True)
        await stop


async def echoes(connection, count):
    """Round-trip times of `count` sequential echoes, in microseconds."""
    times = []
    for _ in range(count):
        start = time.perf_counter_ns()
        await connection.send(message())
        await connection.recv()
        times.append((time.perf_counter_ns() - start) / 1000)
    return times


def summary(times):
    ordered = sorted(times)
    return {"median": ordered[len(ordered) // 2], "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]}


async def measure(port, count, compression, warm_up, rounds):
    uri = f"ws://127.0.0.1:{port}/echo"
    options = dict(
        compression="deflate" if compression else None, proxy=None, ping_interval=None, max_size=None,
        open_timeout=60,
    )

    async def open_one():
        connection = await connect(uri, **options)
        await connection.send(message())
        await connection.recv()
        return connection

    probe = await connect(uri, **options)
    await echoes(probe, warm_up)
    alone = summary(await echoes(probe, rounds))
    gc.collect()
    resident_before, descriptors_before = process_status()

    idle, failures, first_failure = [], 0, None
    start = time.perf_counter()
    for first in range(0, count - 1, BATCH):
        batch = range(first, min(first + BATCH, count - 1))
        results = await asyncio.gather(*(open_one() for _ in batch), return_exceptions=True)
        for number, result in zip(batch, results):
            if isinstance(result, BaseException):
                failures += 1
                if first_failure is None:
                    first_failure = f"connection {number + 2}: {type(result).__name__}: {result}"
            else:
                idle.append(result)
    open_seconds = time.perf_counter() - start
    await asyncio.sleep(IDLE_SECONDS)
    gc.collect()
    resident_after, descriptors_after = process_status()

    await echoes(probe, warm_up)
    loaded = summary(await echoes(probe, rounds))

    start = time.perf_counter()
    await asyncio.gather(*(connection.close() for connection in [probe] + idle))
    close_seconds = time.perf_counter() - start
    print(json.dumps({
        "opened": len(idle) + 1,
        "failures": failures,
        "firstFailure": first_failure,
        "compressed": probe.protocol.extensions != [],
        "residentBeforeKB": resident_before,
        "residentAfterKB": resident_after,
        "descriptorsBefore": descriptors_before,
        "descriptorsAfter": descriptors_after,
        "openSeconds": open_seconds,
        "closeSeconds": close_seconds,
        "alone": alone,
        "loaded": loaded,
    }), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["serve", "measure"])
    parser.add_argument("port", nargs="?", type=int)
    parser.add_argument("count", nargs="?", type=int, default=1000)
    parser.add_argument("--compression", choices=["on", "off"], default="on")
    parser.add_argument("--warm-up", type=int, default=200)
    parser.add_argument("--echoes", type=int, default=2000)
    arguments = parser.parse_args()
    raise_descriptor_limit()
    compression = arguments.compression == "on"
    if arguments.mode == "serve":
        asyncio.run(serve_echo(compression))
    else:
        if arguments.port is None:
            parser.error("measure needs PORT")
        asyncio.run(measure(arguments.port, max(1, arguments.count), compression, arguments.warm_up, arguments.echoes))


if __name__ == "__main__":
    sys.exit(main())
