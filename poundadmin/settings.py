"""PoundAdmin settings: one module, driven by environment variables.

Defaults are the secure production values. Local development sets DEBUG=true (the Makefile's
`make run` does), which relaxes only what must be relaxed to serve over plain HTTP on 127.0.0.1.
"""

import logging
from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A .env file is read only for local development convenience; production passes real variables.
if env.bool("POUNDADMIN_READ_DOT_ENV", default=True) and (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")


def _required(name, help_text):
    """Read a production-critical variable, or stop start-up with a sentence that names it."""
    value = env.str(name, default="")
    if not value:
        raise ImproperlyConfigured(
            f"The {name} environment variable is not set. {help_text} "
            "Set it, or set DEBUG=true for local development."
        )
    return value


DEBUG = env.bool("DEBUG", default=False)

if DEBUG:
    SECRET_KEY = env.str("SECRET_KEY", default="django-insecure-local-development-only-" + "x" * 20)
    ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
else:
    SECRET_KEY = _required(
        "SECRET_KEY", "It signs sessions and tokens and must be a long random string."
    )
    ALLOWED_HOSTS = _required(
        "ALLOWED_HOSTS", "List the host names the site is served under, separated by commas."
    ).split(",")

# The Django admin (superuser repair): off unless ADMIN_ENABLED=true turns it on for a repair. It
# signs in through the app's login, with the second factor (docs/decisions/0053).
ADMIN_ENABLED = env.bool("ADMIN_ENABLED", default=False)

# The public address that QR codes on documents and links in mail point at. Required in
# production; in development, empty means "the host and port of the request" (poundadmin/urls.py's
# callers use kernel.documents.public_url).
if DEBUG:
    PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="").rstrip("/")
else:
    PUBLIC_BASE_URL = _required(
        "PUBLIC_BASE_URL",
        "It is the https address printed in every QR code, such as https://pounds.example.gov.in.",
    ).rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "crispy_forms",
    "crispy_bootstrap5",
    "axes",
    # The floors, bottom to top: each imports only from the floors below it; impounding,
    # auctions and office are siblings on one domain floor (docs/decisions/0044).
    "kernel",
    "accounts",
    "ledger",
    "rulepacks",
    "impounding",
    "auctions",
    "office",
    "payments",
    "messaging",
    "api",
    "webhooks",
]

# What the floors below need to know of the apps above them, declared here at the top, where
# every app may be named, rather than registered by each app in AppConfig.ready()
# (docs/decisions/0044). The event log's actions, each app's `EventAction` enum:
EVENT_ACTIONS = [
    "accounts.actions.Action",
    "rulepacks.actions.Action",
    "impounding.actions.Action",
    "auctions.actions.Action",
    "office.actions.Action",
    "payments.actions.Action",
]
# The records an event names by id, and the model each is a row of:
EVENT_SUBJECTS = {
    "by": "accounts.User",
    "district": "accounts.District",
    "pound": "accounts.Pound",
    "impoundment": "impounding.Impoundment",
    "animal": "impounding.Animal",
}
# What the event log records of the State's rules applied: the rule pack, its version and the
# section of the State's Act (docs/decisions/0068), added to each event's data as it is written.
EVENT_STAMP = "rulepacks.services.event_stamp"
# Who hears each event as the kernel writes it: each listener says which events it `hears`, and
# is called with them in the event's transaction, in a savepoint of its own, so a fault there is
# logged and never fails the change (ADR 0044); a training clock's move runs its day (ADR 0080):
EVENT_LISTENERS = [
    "webhooks.services.outbox",
    "messaging.notices.listener",
    "office.district_days.clock_moved",
]
# What each app's records say the ledger's accounts should hold (`manage.py check_ledger`):
LEDGER_EXPECTATIONS = [
    "impounding.ledger_checks.expectations",
    "auctions.ledger_checks.expectations",
    "office.ledger_checks.expectations",
    "payments.ledger_checks.expectations",
]

# The demo and scale data generators and their commands (seed_demo, seed_scale): a development
# and benchmarking tool, installed only with DEBUG on or DEMO=true, never in production. Nothing
# in the product imports it (ADR 0049).
DEMO = env.bool("DEMO", default=False)
if DEBUG or DEMO:
    INSTALLED_APPS.append("demo")

MIDDLEWARE = [
    # First, so that every log line of the request carries its id (and the user's, once known).
    "kernel.middleware.RequestContextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "kernel.login.LoginRequiredMiddleware",  # says when a session has ended
    # no-store on signed-in pages, Permissions-Policy, the 12-hour session.
    "kernel.login.TrustMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so that it sees the outcome of authentication (django-axes requirement).
    "axes.middleware.AxesMiddleware",
]

# --- The second factor (docs/decisions/0053-second-factor.md) -----------------------------------
# TOTP through django-otp, with its static-token device for the recovery codes. Its middleware
# marks the user verified once a code was given in the session (right after authentication);
# accounts.twofactor's, after the login middleware, sends the unverified to give one (or to set
# an authenticator up, for the roles of accounts.roles.SECOND_FACTOR_ROLES).
INSTALLED_APPS += ["django_otp", "django_otp.plugins.otp_totp", "django_otp.plugins.otp_static"]
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.contrib.auth.middleware.AuthenticationMiddleware") + 1,
    "django_otp.middleware.OTPMiddleware",
)
MIDDLEWARE.insert(
    MIDDLEWARE.index("kernel.login.LoginRequiredMiddleware") + 1,
    "accounts.twofactor.SecondFactorMiddleware",
)
OTP_TOTP_ISSUER = "PoundAdmin"

ROOT_URLCONF = "poundadmin.urls"
WSGI_APPLICATION = "poundadmin.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.navigation",
            ],
            "builtins": ["kernel.templatetags.pa", "accounts.templatetags.roles"],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# The owner role, which runs the migrations, connects through its own URL; the application
# connects as the runtime role, which owns nothing (kernel/dbroles.py). Deploy with
# `manage.py migrate --database owner && manage.py db_roles`.
if env.str("DATABASE_MIGRATE_URL", default=""):
    DATABASES["owner"] = env.db("DATABASE_MIGRATE_URL")
    DATABASES["owner"]["TEST"] = {"MIRROR": "default"}
# How `migrate` runs (kernel/migrating.py, docs/operations.md): one at a time per database under
# an advisory lock, every query of the process on the database being migrated (the router), and
# a statement that waits longer than MIGRATION_LOCK_TIMEOUT for a table's lock fails (a
# PostgreSQL interval: "10s", "1min"; "0" waits for ever) instead of queueing the application.
DATABASE_ROUTERS = ["kernel.migrating.MigrateRouter"]
MIGRATION_LOCK_TIMEOUT = env.str("MIGRATION_LOCK_TIMEOUT", default="10s")
# --- The read replica (docs/decisions/0054-read-replica.md) ----------------------------------
# DATABASE_REPLICA_URL: a streaming replica of the primary, for the read-only pages and exports
# that ask for it (kernel.replica.reads_from_replica); without it every query goes to `default`.
# After a successful write a user's reads stay on the primary for REPLICA_STICKY_SECONDS. No
# write and no migration ever goes to the replica (kernel.replica.ReplicaRouter). In tests the
# alias is a mirror of `default` unless a test points it at a real replica.
REPLICA_DATABASE = None
if env.str("DATABASE_REPLICA_URL", default=""):
    REPLICA_DATABASE = "replica"
    DATABASES["replica"] = env.db("DATABASE_REPLICA_URL")
    DATABASES["replica"]["ATOMIC_REQUESTS"] = False
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    if DATABASES["replica"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["replica"].setdefault("CONN_MAX_AGE", DATABASES["default"].get("CONN_MAX_AGE", 0))
        DATABASES["replica"]["CONN_HEALTH_CHECKS"] = True
REPLICA_STICKY_SECONDS = env.int("REPLICA_STICKY_SECONDS", default=5)
DATABASE_ROUTERS.append("kernel.replica.ReplicaRouter")
MIDDLEWARE.insert(
    MIDDLEWARE.index("kernel.middleware.RequestContextMiddleware") + 1,
    "kernel.replica.PrimaryAfterWriteMiddleware",
)
# --- end of the read replica ----------------------------------------------------------------
# Several app servers: nothing may live only in one process, so the cache is a table of the
# database they share (created by the kernel's migration 0003), never a per-process memory.
# The throttles count in their own table (accounts.throttle), atomically.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "poundadmin_cache",
    }
}

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    # django-axes first, so that a locked-out client is refused before the password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Sessions end after 30 minutes without a request. A request pushes the expiry on by saving the
# session, but only once the last save is a minute old (a tenth of the limit, at most a minute),
# so a busy user writes the session row once a minute, not on every page (kernel/login.py,
# ADR 0067): the session ends at most that slack before the 30 minutes, never after.
SESSION_COOKIE_AGE = env.int("SESSION_IDLE_SECONDS", default=30 * 60)
SESSION_SAVE_EVERY_REQUEST = False
SESSION_SAVE_SLACK_SECONDS = min(60, SESSION_COOKIE_AGE // 10)
# However busy, a session ends this long after sign-in (kernel/login.py).
SESSION_ABSOLUTE_SECONDS = env.int("SESSION_ABSOLUTE_SECONDS", default=12 * 60 * 60)
SESSION_EXPIRE_AT_BROWSER_CLOSE = True

# Failed-login throttling (django-axes): the same username from the same address is locked out
# after five failures for fifteen minutes; every failure during the lockout restarts it.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# Beside it, one address trying many user names waits too (accounts/throttle.py).
AXES_ADDRESS_FAILURE_LIMIT = env.int("AXES_ADDRESS_FAILURE_LIMIT", default=20)
VERIFY_RATE_PER_MINUTE = env.int("VERIFY_RATE_PER_MINUTE", default=30)
# Requests a minute each API token may make (api/ratelimit.py); a token may carry its own.
API_RATE_PER_MINUTE = env.int("API_RATE_PER_MINUTE", default=120)
# The field app (issue 22, ADR 0074). A phone's clock further than this from the server's when
# it sends a record is flagged for the office, never refused.
FIELD_CLOCK_TOLERANCE_MINUTES = env.int("FIELD_CLOCK_TOLERANCE_MINUTES", default=15)
# A paired phone's device token lapses after this many days without a sync (ADR 0074).
FIELD_DEVICE_IDLE_DAYS = env.int("FIELD_DEVICE_IDLE_DAYS", default=60)
# An answered Idempotency-Key is kept this many days: a phone may hold a record offline for up
# to 30 days and still send it once. Fewer than 30 is refused at start.
IDEMPOTENCY_KEEP_DAYS = env.int("IDEMPOTENCY_KEEP_DAYS", default=30)
if IDEMPOTENCY_KEEP_DAYS < 30:
    raise ImproperlyConfigured("IDEMPOTENCY_KEEP_DAYS must be 30 or more (the field app's window).")
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.views.lockout"
AXES_IPWARE_PROXY_COUNT = env.int("PROXY_COUNT", default=0)
AXES_VERBOSE = False

LANGUAGE_CODE = "en"
# Every shipped language may be picked by anyone; a document's second half is in its district's
# rule-pack language (kernel/languages.py, docs/decisions/0069).
LANGUAGES = [("en", _("English")), ("hi", _("Hindi")), ("mr", _("Marathi")), ("ta", _("Tamil"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "Asia/Kolkata"
USE_I18N = True
USE_TZ = True
FORMAT_MODULE_PATH = ["kernel.formats"]

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "media")
# Uploads and issued documents. The filesystem (MEDIA_ROOT) unless S3_BUCKET is set: then
# django-storages' S3 backend, against AWS or any S3-compatible store (MinIO, Ceph) named by
# S3_ENDPOINT_URL. Nothing is public either way: the views check permissions, then stream the
# file or redirect to a presigned URL that lives UPLOAD_URL_SECONDS (kernel/files.py).
S3_BUCKET = env.str("S3_BUCKET", default="")
UPLOAD_URL_SECONDS = env.int("UPLOAD_URL_SECONDS", default=60)
if S3_BUCKET:
    _S3_ENDPOINT = env.str("S3_ENDPOINT_URL", default="")
    _DEFAULT_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": S3_BUCKET,
            "endpoint_url": _S3_ENDPOINT or None,
            "region_name": env.str("S3_REGION", default="") or None,
            "access_key": env.str("S3_ACCESS_KEY_ID", default="") or None,
            "secret_key": env.str("S3_SECRET_ACCESS_KEY", default="") or None,
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": UPLOAD_URL_SECONDS,
            "file_overwrite": False,
            "addressing_style": env.str("S3_ADDRESSING_STYLE", default="path"),
            "signature_version": "s3v4",
        },
    }
else:
    _DEFAULT_STORAGE = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _DEFAULT_STORAGE,
    "staticfiles": {
        "BACKEND": env.str(
            "STATICFILES_STORAGE",
            default="django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage",
        )
    },
}

# Background work (Django's tasks framework): PostgreSQL is the queue (django-tasks-db), run by
# `manage.py db_worker`. `make run` (DEBUG) runs each task at once, inside the request that
# enqueues it, so that development needs no worker; TASKS_BACKEND chooses either explicitly.
TASKS = {
    "default": {
        "BACKEND": env.str(
            "TASKS_BACKEND",
            default="django.tasks.backends.immediate.ImmediateBackend"
            if DEBUG
            else "django_tasks_db.DatabaseBackend",
        )
    }
}
# --- Timeouts and the worker's leases (docs/decisions/0052) ----------------------------------
# PostgreSQL: a connection attempt gives up after DB_CONNECT_TIMEOUT seconds, and a statement of
# a web request after DB_STATEMENT_TIMEOUT. Long work (the worker, migrations, the daily run, the
# seeds: manage.py sets POUNDADMIN_LONG_WORK; an export's COPY, office/exports.py) gets
# DB_WORK_STATEMENT_TIMEOUT instead (0: no limit). Every connection also
# checks every DB_CLIENT_CHECK_SECONDS during a query that its client is still there, so the
# query of a process killed mid-way stops (PostgreSQL 14 and later; 0 leaves it out, for 13).
DB_CONNECT_TIMEOUT = env.int("DB_CONNECT_TIMEOUT", default=5)
DB_STATEMENT_TIMEOUT = env.int("DB_STATEMENT_TIMEOUT", default=30)
DB_WORK_STATEMENT_TIMEOUT = env.int("DB_WORK_STATEMENT_TIMEOUT", default=1800)
DB_CLIENT_CHECK_SECONDS = env.int("DB_CLIENT_CHECK_SECONDS", default=10)
_STATEMENT_TIMEOUT = (
    DB_WORK_STATEMENT_TIMEOUT
    if env.bool("POUNDADMIN_LONG_WORK", default=False)
    else DB_STATEMENT_TIMEOUT
)
for _database in DATABASES.values():
    if _database["ENGINE"] == "django.db.backends.postgresql":
        _options = _database.setdefault("OPTIONS", {})
        _options.setdefault("connect_timeout", DB_CONNECT_TIMEOUT)
        _flags = [
            _options.get("options", ""),
            f"-c statement_timeout={_STATEMENT_TIMEOUT}s",
            "-c jit=off",  # short indexed statements: JIT compiles for 100-200 ms (ADR 0086)
            f"-c client_connection_check_interval={DB_CLIENT_CHECK_SECONDS}s"
            if DB_CLIENT_CHECK_SECONDS
            else "",
        ]
        _options["options"] = " ".join(filter(None, _flags))
# The object store: a connection gives up after S3_CONNECT_TIMEOUT seconds, an answer after
# S3_READ_TIMEOUT, and a request is tried S3_MAX_ATTEMPTS times in all, so a hung store fails a
# request in seconds rather than hanging it.
S3_CONNECT_TIMEOUT = env.float("S3_CONNECT_TIMEOUT", default=3)
S3_READ_TIMEOUT = env.float("S3_READ_TIMEOUT", default=10)
S3_MAX_ATTEMPTS = env.int("S3_MAX_ATTEMPTS", default=2)
if S3_BUCKET:
    from botocore.config import Config as _S3Config

    _s3 = STORAGES["default"]["OPTIONS"]
    # Given a client_config, django-storages reads the addressing style and signature from it.
    _s3["client_config"] = _S3Config(
        s3={"addressing_style": _s3["addressing_style"]},
        signature_version=_s3["signature_version"],
        connect_timeout=S3_CONNECT_TIMEOUT,
        read_timeout=S3_READ_TIMEOUT,
        retries={"max_attempts": S3_MAX_ATTEMPTS, "mode": "standard"},
    )
# A running task holds a lease its worker renews every third of WORKER_LEASE_SECONDS; a task
# whose lease lapsed goes back to the queue, run by any worker (kernel/worker.py), at most
# TASK_MAX_ATTEMPTS times in all before it is marked failed.
WORKER_LEASE_SECONDS = env.int("WORKER_LEASE_SECONDS", default=30)
TASK_MAX_ATTEMPTS = env.int("TASK_MAX_ATTEMPTS", default=3)
# /healthz/ready answers within this many seconds, whatever hangs behind a check.
HEALTH_PROBE_SECONDS = env.float("HEALTH_PROBE_SECONDS", default=1.5)
# The kernel's `db_worker` (the library's worker, holding leases) must be the one manage.py
# runs: Django takes a command from the first installed app that has it.
INSTALLED_APPS.append("django_tasks_db")
# --- end of the timeouts and leases ---------------------------------------------------------

# Signed checkpoints of the event log (kernel/anchors.py): an Ed25519 private key in PEM,
# given directly or as a file's path, never stored in the database. A machine that only verifies
# needs only the public key (its 32 raw bytes, base64). `manage.py checkpoint_key` makes a pair.
CHECKPOINT_SIGNING_KEY = env.str("CHECKPOINT_SIGNING_KEY", default="")
CHECKPOINT_SIGNING_KEY_FILE = env.str("CHECKPOINT_SIGNING_KEY_FILE", default="")
CHECKPOINT_PUBLIC_KEY = env.str("CHECKPOINT_PUBLIC_KEY", default="")
# Each signed checkpoint is also written to a bucket with Object Lock (versioning on), retained
# CHECKPOINT_LOCK_DAYS in CHECKPOINT_LOCK_MODE (COMPLIANCE: no one deletes it before then;
# GOVERNANCE: only with the bypass permission), on the store S3_ENDPOINT_URL names, with the
# object store's timeouts and, unless CHECKPOINT_LOCK_ACCESS_KEY_ID is set, its credentials
# (kernel/locked.py). Empty: no write-once copy.
CHECKPOINT_LOCK_BUCKET = env.str("CHECKPOINT_LOCK_BUCKET", default="")
CHECKPOINT_LOCK_MODE = env.str("CHECKPOINT_LOCK_MODE", default="COMPLIANCE")
CHECKPOINT_LOCK_DAYS = env.int("CHECKPOINT_LOCK_DAYS", default=3650)
# After a restore (docs/backups.md): its time, ISO 8601 with the offset. The bucket's checkpoints
# signed before it, which name the links the restore lost, are kept there but no longer read.
CHECKPOINT_LOCK_FROM = env.str("CHECKPOINT_LOCK_FROM", default="")
if CHECKPOINT_LOCK_MODE not in ("COMPLIANCE", "GOVERNANCE"):
    raise ImproperlyConfigured("CHECKPOINT_LOCK_MODE must be COMPLIANCE or GOVERNANCE.")
CHECKPOINT_LOCK_S3 = {
    "endpoint_url": env.str("S3_ENDPOINT_URL", default=""),
    "region_name": env.str("S3_REGION", default=""),
    "access_key": env.str("CHECKPOINT_LOCK_ACCESS_KEY_ID", default="")
    or env.str("S3_ACCESS_KEY_ID", default=""),
    "secret_key": env.str("CHECKPOINT_LOCK_SECRET_ACCESS_KEY", default="")
    or env.str("S3_SECRET_ACCESS_KEY", default=""),
    "addressing_style": env.str("S3_ADDRESSING_STYLE", default="path"),
}

# Backups (kernel/backups.py, docs/backups.md): the threads that copy the stored files out of
# the bucket, and back into it on a restore.
BACKUP_THREADS = env.int("BACKUP_THREADS", default=16)
# --- end of the backups ---------------------------------------------------------------------

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

# Mail (Django 6.1 mailers): the console in development, SMTP from the environment in production.
_EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
MAILERS = {
    "default": {
        "BACKEND": _EMAIL_BACKEND,
        "OPTIONS": {
            "host": env.str("EMAIL_HOST", default="localhost"),
            "port": env.int("EMAIL_PORT", default=25),
            "username": env.str("EMAIL_HOST_USER", default=""),
            "password": env.str("EMAIL_HOST_PASSWORD", default=""),
            "use_tls": env.bool("EMAIL_USE_TLS", default=False),
            "timeout": 20,
        }
        if _EMAIL_BACKEND.endswith("smtp.EmailBackend")
        else {},
    }
}
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="poundadmin@localhost")

# Security headers. Production values by default; DEBUG relaxes only the HTTPS-bound ones.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", default=False) else None
)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
# The load balancer's health checks speak plain HTTP to the app server.
SECURE_REDIRECT_EXEMPT = [r"^healthz"]
# The retention rule (docs/retention.md): personal data of a case is erased this many years
# after its last animal left the pound; login records (django-axes) after this many days (CERT-In
# keeps security logs 180 days); files prepared for a user after this many days.
RETENTION_PERSONAL_YEARS = env.int("RETENTION_PERSONAL_YEARS", default=8)
# Lost-cattle reports (ADR 0079). Product defaults, not statutory figures: the days a report stays
# open where the district's rule pack leaves clocks.lost_report_days empty; codes sent an hour
# from one address, and a day to one phone.
LOST_REPORT_DAYS = env.int("LOST_REPORT_DAYS", default=30)
LOST_CODES_PER_ADDRESS_HOUR = env.int("LOST_CODES_PER_ADDRESS_HOUR", default=10)
LOST_CODES_PER_PHONE_DAY = env.int("LOST_CODES_PER_PHONE_DAY", default=5)
RETENTION_LOGIN_DAYS = env.int("RETENTION_LOGIN_DAYS", default=180)
RETENTION_PREPARED_DAYS = env.int("RETENTION_PREPARED_DAYS", default=30)
# Days a document kept by what it says (kept/, ADR 0072) stays in the store; a file swept is drawn
# again on its next download.
RETENTION_KEPT_DAYS = env.int("RETENTION_KEPT_DAYS", default=30)
# Years the relatives a member of staff declared (s.19) are kept after she left the service. No
# rule publishes this period: the State fills it from its record retention schedule. Until it
# does, they are kept as long as the bidders they were checked against (docs/retention.md).
RETENTION_RELATIVES_YEARS = env.int("RETENTION_RELATIVES_YEARS", default=RETENTION_PERSONAL_YEARS)
# /healthz/queue fails when the oldest task has waited longer than this: the worker is down or
# behind (docs/decisions/0052). Readiness does not look at the queue.
HEALTH_QUEUE_MAX_AGE = env.int("HEALTH_QUEUE_MAX_AGE", default=600)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
# Cookies travel only over HTTPS in production. The test suite's live server speaks plain HTTP
# on 127.0.0.1 and turns this off explicitly.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = LANGUAGE_COOKIE_SECURE = env.bool(
    "SECURE_COOKIES", default=not DEBUG
)
SESSION_COOKIE_HTTPONLY = True
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Everything is served from this origin: no CDN, no inline script. Images may be data: URIs
# (QR codes) and blob: (a camera preview, a drawn signature).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    # The presigned URLs of the object store, when there is one (kernel/files.py).
    "img-src": [CSP.SELF, "data:", "blob:"]
    + (
        [env.str("S3_PUBLIC_ORIGIN", default="") or _S3_ENDPOINT or "https://*.amazonaws.com"]
        if S3_BUCKET
        else []
    ),
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# Logs go to standard output (systemd's journal, the container's log). In production each line
# is one JSON object (python-json-logger) with the request id, the user's id and the path; never
# names, phones or addresses. LOG_FORMAT=text gives plain lines.
LOG_FORMAT = env.str("LOG_FORMAT", default="text" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request": {"()": "kernel.middleware.RequestContextFilter"}},
    "formatters": {
        # python-json-logger with the request's fields and ISO 8601 times with their offset;
        # gunicorn's logs use it too (gunicorn.conf.py).
        "json": {"()": "kernel.logs.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request"],
            "formatter": "json" if LOG_FORMAT == "json" else "text",
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
    # Django's own records (a task run, a request refused) reach the console once, through the
    # root: not also through Django's default console handler, as in DEBUG they did (issue 27).
    "loggers": {"django": {"handlers": [], "level": "INFO", "propagate": True}},
}
# Python's warnings (a library's deprecation, a missing static folder) are log records too, in
# the same format, rather than bare lines on standard error.
logging.captureWarnings(True)

# Error reporting: off unless SENTRY_DSN is set. No personal data is sent (send_default_pii off).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
if SENTRY_DSN:
    import sentry_sdk

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=env.str("SENTRY_ENVIRONMENT", default="production"),
        send_default_pii=False,
        traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
    )

# Upload limits for scanned orders and photos (checked again by the forms that accept them).
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# The services outside PoundAdmin (webhooks, payment and SMS gateways, registries) are set in
# their own module, read from the same environment.
from poundadmin.outside import *  # noqa: E402, F403
