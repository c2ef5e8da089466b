from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo and scale data sets and the commands that write them (ADR 0049).

    Installed only when DEBUG is on or DEMO=true: a production install has neither the commands
    nor the demo's users and password. It may import every app; no app imports it.
    """

    name = "demo"
    verbose_name = "Demo and scale data"
