"""A fake SBIePay-like gateway on loopback, a real HTTP server in a thread: it answers the status
query and the refund with signed messages, and makes the callbacks it would send, which the test
delivers (or loses, or sends twice, early, or with a wrong amount)."""

import base64
import json
import threading
import time
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from payments.gateways import FAILURE, PENDING, SUCCESS, SbiePayLike, decode, encode

KEY = base64.b64encode(b"k" * 32).decode()
MERCHANT = "POUND01"


class FakeGateway:
    def __init__(self):
        self.orders = {}  # our reference -> {"amount", "status", "gwref"}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.adapter = SbiePayLike(url=self.url, merchant_id=MERCHANT, key=KEY)
        self.down = False
        # How the refund endpoint answers: "success", "failure", "pending", or "timeout" (it
        # refunds, then answers after the client stopped waiting). Refunds it made, by refundRef.
        self.refund_mode = "success"
        self.refunds = {}  # refundRef -> {"status", "amount", "gwref", "ref"}
        self.slow = 2.0
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    # --- what the browser does at the gateway ------------------------------------------------

    def take_order(self, order):
        """The browser POSTs the order's form here: the gateway reads it."""
        pairs = decode(self.adapter.decrypt(order.fields["encryptTrans"]))
        self.orders[pairs["ref"]] = {
            "amount": Decimal(pairs["amount"]),
            "status": PENDING,
            "gwref": f"SBI{len(self.orders) + 1:08d}",
            "callback": pairs["callback"],
            "return": pairs["return"],
        }
        return pairs

    def pay(self, ref, *, ok=True):
        self.orders[ref]["status"] = SUCCESS if ok else FAILURE

    def callback(self, ref, *, amount=None, encrypted=False):
        """The form the gateway POSTs to the callback URL; `amount` to lie about it."""
        order = self.orders[ref]
        msg = encode(
            {
                "ref": ref,
                "gwref": order["gwref"],
                "status": order["status"],
                "amount": f"{amount if amount is not None else order['amount']:.2f}",
            }
        )
        if encrypted:
            return {"encData": self.adapter.encrypt(msg)}
        return {"msg": msg, "checksum": self.adapter.sign(msg)}

    def refund(self, pairs):
        """The refund operation: one refundRef is refunded once; asked again, the same answer
        (a refund that timed out is found refunded when asked again)."""
        key = pairs.get("refundRef") or pairs["ref"]
        done = self.refunds.get(key)
        if done is None or done["status"] == PENDING:
            mode = self.refund_mode
            status = {"success": SUCCESS, "failure": FAILURE, "pending": PENDING}.get(mode, SUCCESS)
            done = {
                "ref": pairs["ref"],
                "status": status,
                "amount": pairs["amount"],
                "gwref": f"RFD{len(self.refunds) + 1:08d}",
            }
            self.refunds[key] = done
            if mode == "timeout":
                self.refund_mode = "success"  # asked again, it answers
                time.sleep(self.slow)
                return None
        return encode(
            {
                "ref": done["ref"],
                "gwref": done["gwref"],
                "status": done["status"],
                "amount": done["amount"],
            }
        )

    def refunded(self, ref):
        """How many refunds the gateway made of the payment `ref` (never more than one)."""
        return sum(1 for r in self.refunds.values() if r["ref"] == ref and r["status"] == SUCCESS)

    # --- the server ------------------------------------------------------------------------

    def _handler(gateway):
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                if gateway.down:
                    self.send_response(503)
                    self.end_headers()
                    return
                length = int(self.headers.get("Content-Length", 0))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                pairs = decode(form["msg"])
                if gateway.adapter.sign(form["msg"]) != form["checksum"]:
                    self.send_response(403)
                    self.end_headers()
                    return
                if self.path.rstrip("/").endswith("/refund"):
                    return self._answer(gateway.refund(pairs))
                order = gateway.orders.get(pairs["ref"])
                status = order["status"] if order else FAILURE
                msg = encode(
                    {
                        "ref": pairs["ref"],
                        "gwref": order["gwref"] if order else "",
                        "status": status,
                        "amount": f"{order['amount'] if order else Decimal('0'):.2f}",
                    }
                )
                self._answer(msg)

            def _answer(self, msg):
                if msg is None:
                    return  # the connection is dropped: the client's timeout ends its wait
                body = json.dumps({"msg": msg, "checksum": gateway.adapter.sign(msg)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler
