"""A throwaway HTTP server for the replay tests: it answers on a loopback address the
test owns (inside the tests' loopback-only namespace), records the paths asked of it,
and, given ``location``, answers 302 there (a redirect to "another host").  With
``challenge`` it answers 401 (Basic) to a request without credentials, as a server
behind a login does (wget sends a ``.netrc`` login only then); ``sent`` keeps the
headers of every request, so a test sees a login or a planted header arrive."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Server:
    """An HTTP server on ``host`` that records the paths asked of it (``hits``)."""

    def __init__(self, host: str, location: str | None = None, *,
                 challenge: bool = False) -> None:
        hits = self.hits = []  # type: list[str]
        sent = self.sent = []  # type: list[dict[str, str]]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                hits.append(self.path)
                sent.append({k.lower(): v for k, v in self.headers.items()})
                if challenge and "Authorization" not in self.headers:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="logkb"')
                    body = b"login\n"
                elif location is not None:
                    self.send_response(302)
                    self.send_header("Location", location)
                    body = b"moved\n"
                else:
                    self.send_response(200)
                    body = b"other host reached\n"
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.port = self.httpd.server_address[1]
        self._t = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._t.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
