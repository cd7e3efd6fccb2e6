"""HTTPS test server for Kringle's TLS tests (started by TLSTestServer.swift).

Usage: https_server.py CONFIG_JSON, where CONFIG_JSON is a list of listeners:
  [{"name": "trusted", "certificate": "/abs/localhost.pem", "key": "/abs/localhost.key",
    "clientCA": "/abs/client-ca.pem" (optional: require a client certificate from it),
    "maximumVersion": "TLSv1_2" (optional),
    "reloadsCertificate": true (optional: read the certificate and key files again before
    every handshake, into the same context, so that replacing the files rotates the
    certificate while session tickets stay valid, as on a server whose ticket keys outlive
    its certificate)}]

Binds each listener to 127.0.0.1 on a port the system picks, prints one line of JSON
{"name": port, ...} to standard output, then serves until this process's parent exits (it
waits on a pidfd on Linux, a kqueue on macOS, so a test process that dies never leaves a server
behind) or it gets SIGTERM.

Every request gets 200 with the body "hello over TLS\n" and a header
X-Client-Certificate naming the client certificate's subject CN ("none" without one).
HTTP/1.1 with keep-alive, except that a request for /close is answered with
"Connection: close" and its connection closed (RFC 9112 section 9.6), so that the client's
next request opens a new one; each connection's TLS handshake runs on that connection's
thread, so a client that fails the handshake never holds up the others.
"""
import http.server
import json
import os
import socket
import socketserver
import ssl
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from parent_exit import wait_for_exit  # noqa: E402


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        certificate = self.connection.getpeercert()
        name = "none"
        if certificate:
            for entry in certificate.get("subject", ()):
                for key, value in entry:
                    if key == "commonName":
                        name = value
        body = b"hello over TLS\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Client-Certificate", name)
        if self.path == "/close":
            self.send_header("Connection", "close")  # http.server then closes the connection
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, context, reload=None):
        self.context = context
        self.reload = reload  # (certificate, key) to read again before each handshake
        self.reload_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), Handler)

    def finish_request(self, request, client_address):
        # On the connection's own thread: a failed handshake ends only this connection.
        request.settimeout(30)
        with self.reload_lock:
            if self.reload:
                # The same context: its session ticket keys stay, only the certificate changes.
                self.context.load_cert_chain(*self.reload)
            secure = self.context.wrap_socket(request, server_side=True, do_handshake_on_connect=False)
        try:
            secure.do_handshake()
        except (ssl.SSLError, OSError):
            # OpenSSL has sent its alert (certificate required, unknown CA…). Closing now,
            # with the client's request unread, would make the kernel send a reset that can
            # overtake the alert; so stop writing and wait for the client to hang up.
            # (SSLSocket.shutdown drops the TLS layer: what follows is plain TCP.)
            try:
                secure.shutdown(socket.SHUT_WR)
                while secure.recv(65536):
                    pass
            except OSError:
                pass
            secure.close()
            return
        try:
            self.RequestHandlerClass(secure, client_address, self)
        finally:
            try:
                secure.close()
            except OSError:
                pass

    def handle_error(self, request, client_address):
        pass  # a client that hangs up or fails TLS is what these tests do on purpose


def context_for(listener):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(listener["certificate"], listener["key"])
    if "clientCA" in listener:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(listener["clientCA"])
    if "maximumVersion" in listener:
        context.maximum_version = getattr(ssl.TLSVersion, listener["maximumVersion"])
    return context


def main():
    listeners = json.loads(sys.argv[1])
    ports = {}
    for listener in listeners:
        reload = None
        if listener.get("reloadsCertificate"):
            reload = (listener["certificate"], listener["key"])
        server = Server(context_for(listener), reload)
        ports[listener["name"]] = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write(json.dumps(ports) + "\n")
    sys.stdout.flush()
    wait_for_exit()


if __name__ == "__main__":
    main()
