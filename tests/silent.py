"""A TCP server on 127.0.0.1 that accepts connections and never answers: the object store or the
database port hung, as the tests of the timeouts need it (tests/kernel/test_health.py)."""

import socket
import threading


class SilentServer:
    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.accepted = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            self.accepted.append(client)  # held open, never read, never answered

    def close(self):
        """Drop every connection, so a client still waiting gives up at once."""
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        except OSError:
            pass
        self.listener.close()
        for client in self.accepted:
            client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
