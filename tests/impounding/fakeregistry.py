"""A fake of a State's ear-tag registry on loopback, a real HTTP server in a thread, speaking the
JSON protocol of ADR 0078: GET /tags/<tag> with an X-Registry-Token header; 200 with the owner,
404 for a tag it knows no owner of, 401 for a wrong token. It can be made slow (past the
client's timeout), fail (HTTP 500) or answer garbage (malformed JSON, another tag)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "state-granted-token"


class FakeRegistry:
    def __init__(self):
        self.owners = {}  # tag -> {"name", "phone", "village"}
        self.mode = "ok"  # "ok", "slow", "error", "garbage", "wrong_tag"
        self.delay = 1.0
        self.asked = []  # the tags asked, in order
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def _answer(self, tag):
        if self.mode == "error":
            return 500, b'{"error": "internal"}'
        if self.mode == "garbage":
            return 200, b'{"tag": "' + tag.encode() + b'", "owner": {"na'
        if self.mode == "wrong_tag":
            return 200, json.dumps({"tag": "000000000000", "owner": {"name": "X"}}).encode()
        owner = self.owners.get(tag)
        if owner is None:
            return 404, json.dumps({"tag": tag, "owner": None}).encode()
        return 200, json.dumps({"tag": tag, "owner": owner}).encode()

    def _handler(registry):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                prefix = "/v1/tags/"
                if not self.path.startswith(prefix):
                    return self._send(404, b"{}")
                if self.headers.get("X-Registry-Token") != TOKEN:
                    return self._send(401, b'{"error": "token"}')
                tag = self.path.removeprefix(prefix)
                registry.asked.append(tag)
                if registry.mode == "slow":
                    time.sleep(registry.delay)
                self._send(*registry._answer(tag))

            def _send(self, status, body):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up waiting
                    pass

            def log_message(self, *args):
                pass

        return Handler
