"""Intake warnings, stored as codes so that they read in the language of whoever looks."""

from django.utils.translation import gettext as _

from .models import SeizerCapacity, SeizureBasis


def describe_warnings(warnings):
    out = []
    for w in warnings or []:
        code = w.get("code")
        if code == "late_transfer":
            out.append(
                _(
                    "The cattle reached the pound %(hours)s hours after the seizure: more "
                    "than the %(limit)s hours allowed (s.10). Detention in breach of the Act "
                    "is a ground for complaint (s.20)."
                )
                % {"hours": w["hours"], "limit": w["limit"]}
            )
        elif code == "village_not_served":
            out.append(
                _(
                    "The village of seizure, %(village)s, is not served by this pound. A "
                    "s.10 seizure goes to the pound of the village where the land lies "
                    "(s.4)."
                )
                % {"village": w["village"]}
            )
        elif code == "capacity_mismatch":
            out.append(
                _(
                    "The seizer's capacity (%(capacity)s) is not one the Act allows for "
                    "this basis (%(basis)s)."
                )
                % {
                    "capacity": SeizerCapacity(w["capacity"]).label,
                    "basis": SeizureBasis(w["basis"]).label,
                }
            )
        elif code == "tag_check_failed":
            out.append(
                _(
                    "Animal %(animal)s: ear tag %(tag)s fails the Pashu Aadhaar check digit; "
                    "the keeper confirmed it reads as written."
                )
                % {"animal": w["animal"], "tag": w["tag"]}
            )
        elif code == "device_clock":
            out.append(
                _(
                    "The phone's clock was %(minutes)s minutes off the server's when this entry "
                    "was sent: check the times entered against the seizer's account."
                )
                % {"minutes": abs(w["minutes"])}
            )
    return out
