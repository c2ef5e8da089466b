"""Roles and permissions live in code: a handful of stable statutory roles, one question to ask.

`has_permission(user, perm, obj)` answers "may this user do X here?" for every view, service and
template. Roles are granted per jurisdiction by `StaffAssignment` rows.
"""

from enum import StrEnum

from django.db import models
from django.utils.translation import gettext_lazy as _


class Permission(StrEnum):
    VIEW_RECORDS = "view_records"
    RECORD_IMPOUNDMENT = "record_impoundment"  # s.8 register entries, amendments
    RECORD_CUSTODY = "record_custody"  # s.9 feeding log, deaths, births, escapes
    RELEASE_ANIMAL = "release_animal"  # s.13, s.15 and ordered releases
    RECORD_PAYMENT = "record_payment"
    # Cash out of a pound's till (a deposit refund): the pound-keeper's; the office only on a
    # written authority it records with the payment.
    PAY_FROM_TILL = "pay_from_till"
    PAY_FROM_TILL_ON_AUTHORITY = "pay_from_till_on_authority"
    SEND_REPORT = "send_report"  # s.14 report of unclaimed cattle (pound-keeper)
    HANDLE_UNCLAIMED = "handle_unclaimed"  # s.14 notice, proclamation (officer)
    RUN_AUCTION = "run_auction"  # ss.14, 16 sales
    MANAGE_TARIFFS = "manage_tariffs"  # s.5 rates, s.12 scales (DM's office)
    PREPARE_ORDERS = "prepare_orders"  # DM's office clerk prepares
    APPROVE = "approve"  # the Magistrate or a delegate decides
    VIEW_REPORTS = "view_reports"
    VIEW_LEDGER = "view_ledger"
    MANAGE_STAFF = "manage_staff"
    DOWNLOAD_OWN_CARD = "download_own_card"
    # The date-driven work of the Act, done by the daily run (see SYSTEM_PERMISSIONS).
    APPLY_DEPOSIT = "apply_deposit"  # s.15 deposit becomes the payment (Magistrate, or the run)
    TRANSFER_SURPLUS = "transfer_surplus"  # s.17 surplus to revenue once its three months end


class Role(models.TextChoices):
    POUND_KEEPER = "pound_keeper", _("Pound-keeper")
    POLICE_OFFICER = "police_officer", _("Police officer")
    DM_CLERK = "dm_clerk", _("District Magistrate's office: clerk")
    MAGISTRATE = "magistrate", _("District Magistrate")
    AUDITOR = "auditor", _("Auditor")
    ADMINISTRATOR = "administrator", _("Administrator")


class Scope(models.TextChoices):
    NONE = "none", _("Whole system")
    STATE = "state", _("State")
    DISTRICT = "district", _("District")
    POLICE_STATION = "police_station", _("Police station")
    POUND = "pound", _("Pound")


P = Permission

ROLE_PERMISSIONS: dict[str, frozenset[Permission]] = {
    Role.POUND_KEEPER: frozenset(
        {
            P.VIEW_RECORDS,
            P.RECORD_IMPOUNDMENT,
            P.RECORD_CUSTODY,
            P.RELEASE_ANIMAL,
            P.RECORD_PAYMENT,
            P.PAY_FROM_TILL,
            P.SEND_REPORT,
            P.VIEW_LEDGER,
            P.DOWNLOAD_OWN_CARD,
        }
    ),
    Role.POLICE_OFFICER: frozenset(
        {
            P.VIEW_RECORDS,
            P.HANDLE_UNCLAIMED,
            P.RUN_AUCTION,
            P.RECORD_PAYMENT,
            P.DOWNLOAD_OWN_CARD,
        }
    ),
    Role.DM_CLERK: frozenset(
        {
            P.VIEW_RECORDS,
            P.MANAGE_TARIFFS,
            P.PREPARE_ORDERS,
            P.VIEW_REPORTS,
            P.VIEW_LEDGER,
            P.RECORD_PAYMENT,
            P.PAY_FROM_TILL_ON_AUTHORITY,
            P.DOWNLOAD_OWN_CARD,
        }
    ),
    Role.MAGISTRATE: frozenset(
        {
            P.VIEW_RECORDS,
            P.MANAGE_TARIFFS,
            P.PREPARE_ORDERS,
            P.APPROVE,
            P.APPLY_DEPOSIT,
            P.VIEW_REPORTS,
            P.VIEW_LEDGER,
            P.DOWNLOAD_OWN_CARD,
        }
    ),
    Role.AUDITOR: frozenset({P.VIEW_RECORDS, P.VIEW_REPORTS, P.VIEW_LEDGER, P.DOWNLOAD_OWN_CARD}),
    Role.ADMINISTRATOR: frozenset({P.MANAGE_STAFF, P.VIEW_REPORTS, P.DOWNLOAD_OWN_CARD}),
}

# Which kinds of jurisdiction each role may be assigned to.
ROLE_SCOPES: dict[str, frozenset[str]] = {
    Role.POUND_KEEPER: frozenset({Scope.POUND}),
    # The officer in charge of a police station, or an officer the DM appoints for named pounds.
    Role.POLICE_OFFICER: frozenset({Scope.POLICE_STATION, Scope.POUND}),
    Role.DM_CLERK: frozenset({Scope.DISTRICT}),
    Role.MAGISTRATE: frozenset({Scope.DISTRICT}),
    Role.AUDITOR: frozenset({Scope.DISTRICT, Scope.STATE}),
    Role.ADMINISTRATOR: frozenset({Scope.NONE, Scope.STATE}),
}

# The daily run (`manage.py run_deadlines`) acts as one system user and is checked like a person,
# holding only what the date-driven work needs: applying the deposits a Magistrate confirmed in
# advance (s.15) and crediting unclaimed surplus to revenue (s.17); it may not decide, sell, release
# or record anything else. Its role is not a Role choice, so no StaffAssignment can name it; and the
# user name has a colon, which the admin's user forms refuse, so no person's account can take it.
SYSTEM_ROLE = "system"
SYSTEM_USERNAME = "system:run_deadlines"
SYSTEM_PERMISSIONS = frozenset({P.APPLY_DEPOSIT, P.TRANSFER_SURPLUS})

# The roles with powers over money and orders, which sign in with a second factor as well as a
# password (docs/decisions/0053-second-factor.md): the District Magistrate, the office's clerk,
# the auditor and the administrator. Anyone else may add one from their account page.
SECOND_FACTOR_ROLES = frozenset({Role.MAGISTRATE, Role.DM_CLERK, Role.AUDITOR, Role.ADMINISTRATOR})
