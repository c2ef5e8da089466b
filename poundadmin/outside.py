"""Settings for the services outside PoundAdmin: outbound webhooks, gateways and registries.

Read from the same environment as `poundadmin.settings`, which imports every name here (the
.env file, where one is read, has already been read into the environment by then). A service
added later puts its settings at the end, with a comment naming its ADR.
"""

import environ

env = environ.Env()

# Outbound webhooks (webhooks/, docs/webhooks.md): a receiver's time to answer, the tries
# before a delivery is given up, the networks besides the public Internet that a webhook may
# call (a State data centre's, say "10.20.0.0/16") and the ports. Plain http:// only where
# WEBHOOK_ALLOW_HTTP is true (a test receiver).
WEBHOOK_TIMEOUT_SECONDS = env.int("WEBHOOK_TIMEOUT_SECONDS", default=10)
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=8)
WEBHOOK_ALLOWED_NETWORKS = env.list("WEBHOOK_ALLOWED_NETWORKS", default=[])
WEBHOOK_ALLOWED_PORTS = env.list("WEBHOOK_ALLOWED_PORTS", cast=int, default=[443, 8443])
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=False)
# The keys that seal the webhooks' signing secrets in the database (webhooks/secrets.py, ADR
# 0060): Fernet keys, newest first, kept outside the database. Required once a webhook exists.
WEBHOOK_SECRET_KEYS = env.list("WEBHOOK_SECRET_KEYS", default=[])
# The payment gateway (ADR 0075): adapter, URL, merchant id, shared key (base64, 32 bytes), timeout.
PAYMENT_GATEWAY = env.str("PAYMENT_GATEWAY", default="sbiepay")
PAYMENT_GATEWAY_URL = env.str("PAYMENT_GATEWAY_URL", default="")
PAYMENT_GATEWAY_MERCHANT_ID = env.str("PAYMENT_GATEWAY_MERCHANT_ID", default="")
PAYMENT_GATEWAY_KEY = env.str("PAYMENT_GATEWAY_KEY", default="")
PAYMENT_GATEWAY_TIMEOUT = env.int("PAYMENT_GATEWAY_TIMEOUT", default=10)
# Messages to owners (messaging/, ADR 0077): the channel ("console", "nic", "mobileseva",
# "email" or "whatsapp"), the gateway's URL, our account's user name and PIN or password (and
# Mobile Seva's secure key), the registered 6-character sender, the entity's DLT id, a try's
# timeout, the tries before a message fails, and the daytime (IST) a message that is not urgent
# waits for. The template ids are data (the template registry), filled in by the State.
MESSAGING_CHANNEL = env.str("MESSAGING_CHANNEL", default="console")
MESSAGING_GATEWAY_URL = env.str("MESSAGING_GATEWAY_URL", default="")
MESSAGING_USERNAME = env.str("MESSAGING_USERNAME", default="")
MESSAGING_PIN = env.str("MESSAGING_PIN", default="")
MESSAGING_SECURE_KEY = env.str("MESSAGING_SECURE_KEY", default="")
MESSAGING_SENDER = env.str("MESSAGING_SENDER", default="")
MESSAGING_DLT_ENTITY_ID = env.str("MESSAGING_DLT_ENTITY_ID", default="")
MESSAGING_TIMEOUT_SECONDS = env.int("MESSAGING_TIMEOUT_SECONDS", default=10)
MESSAGING_MAX_ATTEMPTS = env.int("MESSAGING_MAX_ATTEMPTS", default=8)
MESSAGING_DAYTIME = env.str("MESSAGING_DAYTIME", default="09:00-21:00")
# The State's ear-tag registry (ADR 0078): "none" (the default) or "http", the State's service
# speaking the ADR's JSON protocol at the URL with the token; seconds to wait for it at intake
# (short: the intake never waits on it), and the hours an answer is kept before it is asked again.
EAR_TAG_REGISTRY = env.str("EAR_TAG_REGISTRY", default="none")
EAR_TAG_REGISTRY_URL = env.str("EAR_TAG_REGISTRY_URL", default="")
EAR_TAG_REGISTRY_TOKEN = env.str("EAR_TAG_REGISTRY_TOKEN", default="")
EAR_TAG_REGISTRY_TIMEOUT = env.float("EAR_TAG_REGISTRY_TIMEOUT", default=2.0)
EAR_TAG_REGISTRY_MAX_AGE_HOURS = env.int("EAR_TAG_REGISTRY_MAX_AGE_HOURS", default=24)
# The days after which an open bank-statement line, or a confirmed payment no statement shows, is
# counted as unreconciled on the Magistrate's dashboard (payments/reconcile.py, ADR 0082): a bank
# credits a UPI or NEFT transfer within a working day or two.
UNRECONCILED_AFTER_DAYS = env.int("UNRECONCILED_AFTER_DAYS", default=3)

# The SMS gateways' delivery reports (messaging.reports, ADR 0084): the secret a gateway's
# report carries (the `token` of the URL configured at the gateway, or a bearer token); none
# set, every report is refused. Past the refusals a minute from one address, it is answered 429.
MESSAGING_DLR_TOKEN = env.str("MESSAGING_DLR_TOKEN", default="")
MESSAGING_DLR_REFUSALS_PER_MINUTE = env.int("MESSAGING_DLR_REFUSALS_PER_MINUTE", default=20)
# A final delivery report for an id no message carries yet (the gateway pushed it before the
# sender saved its answer) is kept this many days for the message to claim, then deleted by the
# retention run (messaging.models.EarlyReport, ADR 0084 addendum): the saving follows the
# gateway's answer within seconds, and an id never saved (a try that outlived its lease) never
# will be.
MESSAGING_EARLY_REPORT_DAYS = env.int("MESSAGING_EARLY_REPORT_DAYS", default=7)
