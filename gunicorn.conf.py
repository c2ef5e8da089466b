"""gunicorn for PoundAdmin: `gunicorn -c gunicorn.conf.py poundadmin.wsgi`.

Workers and threads follow the core count (GUNICORN_WORKERS / GUNICORN_THREADS override them).
The slowest page left in a request is a PDF of a few hundred lines (under 2 s at 1M register
entries); exports and returns run in the worker (office/tasks.py), so 60 s is room to spare,
not a budget.
"""

import multiprocessing
import os

# gunicorn has put its working directory, the checkout, on the path before it reads this file.
from kernel.logs import ACCESS_FORMAT, gunicorn_logging

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1))
# Threads let a worker wait on PostgreSQL or the object store while another request runs.
threads = int(os.environ.get("GUNICORN_THREADS", 4))
worker_class = "gthread"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", 60))
graceful_timeout = 30
keepalive = 5
# A worker is replaced after this many requests, so that a slow leak never grows for long.
max_requests = 2000
max_requests_jitter = 200
# WeasyPrint and the fonts load once, before the fork: the first PDF costs no import.
preload_app = True
# Error and access logs to standard output (the journal), one JSON object a line through the
# app's own formatter (kernel/logs.py), each access line with the id the app gave the request.
accesslog = "-"
errorlog = "-"
access_log_format = ACCESS_FORMAT
logconfig_dict = gunicorn_logging(text=os.environ.get("LOG_FORMAT") == "text")
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
