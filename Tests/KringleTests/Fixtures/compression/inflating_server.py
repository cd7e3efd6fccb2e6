"""HTTP server for Kringle's compression tests (started by InflatingServer.swift).

It inflates what a client sent with Python's standard library, so that the bytes Kringle
compresses are checked by code that is not Kringle's: the `gzip` module for
`Content-Encoding: gzip` (RFC 1952, the CRC-32 and length of its trailer checked), `zlib`
for `deflate` (RFC 1950, the Adler-32 checked). The body is read as it arrives, whether
framed by Content-Length or chunked (RFC 9112 §7.1), and inflated as it is read.

Binds to 127.0.0.1 on a port the system picks, prints one line of JSON {"port": N} to
standard output, then serves until this process's parent exits.

The first segment of the path names the Content-Encoding the test expects (`/gzip/logs`,
`/deflate/raw`, `/identity/plain`): a body sent with any other coding (a client that
silently dropped its compression sends none) gets 415, so a test cannot pass on a body
that arrived unencoded. A path that names no coding gets 400.

Any method with a body is answered 200 with the inflated bytes as the body, and headers:
  X-Content-Encoding  the Content-Encoding received ("identity" without one)
  X-Received-Bytes    how many bytes arrived, before inflating
  X-Received-Framing  "chunked" or "content-length"
  X-Content-Type      the Content-Type received
A coding it does not know gets 415; a body that does not inflate (bad header, bad checksum,
truncated, or bytes after the end) gets 400 with the reason.
"""
import gzip
import http.server
import json
import os
import socketserver
import sys
import threading
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from parent_exit import wait_for_exit  # noqa: E402


class Body:
    """The request body as a file: read as it arrives, counted, chunked framing undone."""

    def __init__(self, handler):
        self.stream = handler.rfile
        self.received = 0
        self.chunked = "chunked" in handler.headers.get("Transfer-Encoding", "").lower()
        self.remaining = 0 if self.chunked else int(handler.headers.get("Content-Length", "0"))
        self.finished = False

    def read(self, size=-1):
        if size is None or size < 0:
            size = 1 << 16
        if self.finished:
            return b""
        if self.chunked and self.remaining == 0:
            line = self.stream.readline()
            self.remaining = int(line.split(b";")[0].strip(), 16)
            if self.remaining == 0:
                while self.stream.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailer fields
                self.finished = True
                return b""
        if not self.chunked and self.remaining == 0:
            self.finished = True
            return b""
        data = self.stream.read(min(size, self.remaining))
        if not data:
            raise ValueError("the body ended early")
        self.remaining -= len(data)
        self.received += len(data)
        if self.chunked and self.remaining == 0:
            self.stream.readline()  # the CRLF after a chunk
        return data

    def drain(self):
        while self.read():
            pass


def inflate(coding, body):
    if coding == "gzip":
        with gzip.GzipFile(fileobj=body, mode="rb") as reader:
            inflated = reader.read()
        body.drain()
        return inflated
    inflater = zlib.decompressobj(15)
    pieces = []
    while True:
        data = body.read()
        if not data:
            break
        pieces.append(inflater.decompress(data))
    pieces.append(inflater.flush())
    if not inflater.eof:
        raise ValueError("the zlib stream ended early")
    if inflater.unused_data:
        raise ValueError("bytes after the end of the zlib stream")
    return b"".join(pieces)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        coding = self.headers.get("Content-Encoding", "identity").strip().lower()
        expected = self.path.lstrip("/").split("/")[0].split("?")[0].lower()
        body = Body(self)
        if not expected:
            body.drain()
            return self.reply(400, b"the path must begin with the expected coding, as in /gzip/logs", body, coding)
        if coding != expected:
            body.drain()
            return self.reply(415, ("expected " + expected + ", received " + coding).encode(), body, coding)
        try:
            if coding == "identity":
                inflated = b"".join(iter(body.read, b""))
            elif coding in ("gzip", "deflate"):
                inflated = inflate(coding, body)
            else:
                body.drain()
                return self.reply(415, ("unsupported coding: " + coding).encode(), body, coding)
        except (OSError, EOFError, ValueError, zlib.error) as error:
            self.close_connection = True
            return self.reply(400, str(error).encode(), body, coding)
        self.reply(200, inflated, body, coding)

    def reply(self, status, content, body, coding):
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(content)))
        self.send_header("X-Content-Encoding", coding)
        self.send_header("X-Received-Bytes", str(body.received))
        self.send_header("X-Received-Framing", "chunked" if body.chunked else "content-length")
        self.send_header("X-Content-Type", self.headers.get("Content-Type", ""))
        self.end_headers()
        self.wfile.write(content)

    do_POST = do_PUT = do_PATCH = answer

    def log_message(self, format, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write(json.dumps({"port": server.server_address[1]}) + "\n")
    sys.stdout.flush()
    wait_for_exit()


if __name__ == "__main__":
    main()
