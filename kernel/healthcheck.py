"""The image's HEALTHCHECK (`python -m kernel.healthcheck`): asks this container's gunicorn for
/healthz/ready and exits 0 on a 200, 1 otherwise. It imports no Django, so it costs little.

Django answers 400 to a Host header that ALLOWED_HOSTS does not hold, and a request to
127.0.0.1 carries "127.0.0.1" unless told otherwise; so it sends the first name of
ALLOWED_HOSTS, a leading dot (a domain and its subdomains) dropped. /healthz is exempt from the
HTTPS redirect (SECURE_REDIRECT_EXEMPT), so plain HTTP on the loopback is answered.
"""

import os
import sys
import urllib.error
import urllib.request

PATH = "/healthz/ready"


def host_header(allowed_hosts):
    """The Host to send: the first name ALLOWED_HOSTS ("a,b") allows, or "localhost"."""
    for name in (part.strip() for part in allowed_hosts.split(",")):
        if name and name != "*":
            return name.lstrip(".") or "localhost"
    return "localhost"


def request(environ):
    bind = environ.get("GUNICORN_BIND", "127.0.0.1:8000")
    port = bind.rsplit(":", 1)[-1]
    return urllib.request.Request(
        f"http://127.0.0.1:{port}{PATH}",
        headers={"Host": host_header(environ.get("ALLOWED_HOSTS", ""))},
    )


def main(environ=os.environ):
    try:
        with urllib.request.urlopen(request(environ), timeout=4) as response:
            return 0 if response.status == 200 else 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"healthcheck: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
