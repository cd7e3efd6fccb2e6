"""The WebSocket tests' peer: the `websockets` package (PyPI), which no one here wrote.

Usage: websocket_server.py UNIX_SOCKET_PATH TLS_CERT TLS_KEY

Listens on 127.0.0.1 with and without permessage-deflate, with TLS, and on the Unix socket,
prints one JSON line naming its ports, and serves until the test process exits. What a
connection gets depends on its path:

  /echo              every message back as it came (text as text, binary as binary)
  /fragments         "Hello, fragments!" as a text message in three fragments, then echo
  /close/CODE        a close frame with CODE and the reason "bye"
  /protocol          echo; chooses a subprotocol from chat.v1 and chat.v2
  /cookie            sets `session=abc` on the handshake, then sends the Cookie it got
  /refuse            answers 403 with the body "no sockets for you"
  /pinged            pings the client and sends "pong: <payload>" when the pong comes
  /headers           sends the request's Authorization and X-Trace fields as text
  /flood/N           sends N binary messages of 64 KiB (byte i of message k is (k + i) % 256)
  /stall             reads nothing, ever, with a 64 KiB receive buffer: the client's sends back up
  /drop-once?ID      the first connection for ID gets "first" and is dropped without a close
                     frame; later ones get "second", then echo
  /drop-always       the connection is dropped without a close frame, at once
"""
import asyncio
import json
import os
import socket
import ssl
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from parent_exit import wait_for_exit  # noqa: E402

from websockets.asyncio.server import serve, unix_serve
from websockets.datastructures import Headers
from websockets.http11 import Response

MAX_SIZE = 32 * 1024 * 1024
DROPPED = set()


async def handler(connection):
    path = connection.request.path
    if path.startswith("/close/"):
        await connection.close(int(path.split("/")[2]), "bye")
        return
    if path == "/fragments":
        await connection.send(["Hello, ", "frag", "ments!"])
    elif path == "/cookie":
        await connection.send(connection.request.headers.get("Cookie", ""))
    elif path == "/headers":
        headers = connection.request.headers
        await connection.send(json.dumps({
            "authorization": headers.get("Authorization", ""), "trace": headers.get("X-Trace", "")}))
    elif path.startswith("/drop-once"):
        if path not in DROPPED:
            DROPPED.add(path)
            await connection.send("first")
            connection.transport.abort()
            return
        await connection.send("second")
    elif path == "/drop-always":
        connection.transport.abort()
        return
    elif path.startswith("/flood/"):
        for k in range(int(path.split("/")[2])):
            await connection.send(bytes((k + i) % 256 for i in range(256)) * 256)
    elif path == "/stall":
        # A small, fixed receive buffer (no autotuning up to tcp_rmem's max), so what the
        # kernel can absorb is known.
        sock = connection.transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        await asyncio.Event().wait()
    elif path == "/pinged":
        pong = await connection.ping(b"are you there")
        await pong
        await connection.send("pong: are you there")
    async for message in connection:
        await connection.send(message)


def process_request(connection, request):
    if request.path == "/refuse":
        return Response(403, "Forbidden", Headers({"Content-Length": "18"}), b"no sockets for you")
    return None


def process_response(connection, request, response):
    if request.path == "/cookie":
        response.headers["Set-Cookie"] = "session=abc; Path=/"


def select_subprotocol(connection, subprotocols):
    if connection.request.path != "/protocol":
        return None
    for offered in subprotocols:
        if offered in ("chat.v1", "chat.v2"):
            return offered
    return None


async def main(unix_path, certificate, key):
    options = dict(
        process_request=process_request, process_response=process_response,
        select_subprotocol=select_subprotocol, max_size=MAX_SIZE, ping_interval=None)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    async with serve(handler, "127.0.0.1", 0, **options) as plain, \
            serve(handler, "127.0.0.1", 0, compression=None, **options) as uncompressed, \
            serve(handler, "127.0.0.1", 0, ssl=context, **options) as secure, \
            unix_serve(handler, unix_path, **options):
        ports = {
            "port": plain.sockets[0].getsockname()[1],
            "uncompressed": uncompressed.sockets[0].getsockname()[1],
            "tls": secure.sockets[0].getsockname()[1],
        }
        print(json.dumps(ports), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, wait_for_exit)
        # At once: closing the servers would wait for every handler, and /stall's never ends.
        os._exit(0)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
