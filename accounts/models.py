"""Users, jurisdictions (State → District → PoliceStation → Pound → Villages) and staff roles."""

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from kernel.messages import for_reader, shown
from kernel.models import Event

from .apitokens import ApiToken  # noqa: F401 (kept here)
from .issued import EarlierFile, IssuedDocument, IssuedDocumentManager, new_token  # noqa: F401 (kept here)
from .passkeys import Passkey  # noqa: F401 (kept here)
from .relatives import DeclaredRelative  # noqa: F401 (kept here)
from .roles import ROLE_SCOPES, Role, Scope
from .scoping import DistrictScopedQuerySet, PoundScopedQuerySet
from .trainingclock import TrainingClockFields
from .upi import UpiPayeeFields


class BilingualNameMixin(models.Model):
    """English and Hindi names; `label` picks the one for the active language."""

    name = models.CharField(_("name (English)"), max_length=120)
    name_hi = models.CharField(_("name (second language)"), max_length=120, blank=True)

    class Meta:
        abstract = True

    def __str__(self):
        return self.label

    @property
    def label(self):
        return for_reader(self.name, self.name_hi)


class User(AbstractUser):
    """A member of staff. Phone and ID number feed the s.19 purchase-bar check at auctions."""

    name_hi = models.CharField(_("name in the second language"), max_length=150, blank=True)
    phone = models.CharField(_("mobile number"), max_length=15, blank=True, db_index=True)
    id_number = models.CharField(
        _("official ID number"),
        max_length=40,
        blank=True,
        help_text=_("Employee or service ID, used to check bidders against staff."),
    )
    preferred_language = models.CharField(
        _("preferred language"),
        max_length=8,
        blank=True,
        choices=[("en", "English"), ("hi", "हिन्दी"), ("mr", "मराठी"), ("ta", "தமிழ்")],
    )
    # A State system's account behind one service token (accounts.apitokens): no usable
    # password, refused by the sign-in form even if given one, one appointment for its scope.
    is_service_account = models.BooleanField(_("service account"), default=False, editable=False)

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")

    @property
    def display_name(self):
        return for_reader(self.get_full_name() or self.username, self.name_hi)


class State(BilingualNameMixin):
    code = models.SlugField(_("code"), max_length=12, unique=True)
    # The first line of every document's letterhead; blank: "Government of <State>".
    government_line = models.CharField(_("government line"), max_length=200, blank=True)
    government_line_hi = models.CharField(
        _("government line (second language)"), max_length=200, blank=True
    )

    class Meta:
        verbose_name = _("State")
        verbose_name_plural = _("States")
        ordering = ["name"]


class DistrictQuerySet(DistrictScopedQuerySet):
    scope = "pk"


class District(UpiPayeeFields, TrainingClockFields, BilingualNameMixin):
    """A district, and with it the office of its District Magistrate."""

    state = models.ForeignKey(State, on_delete=models.PROTECT, related_name="districts")
    code = models.SlugField(_("code"), max_length=12, unique=True)
    dm_office_name = models.CharField(_("District Magistrate's office"), max_length=200, blank=True)
    dm_office_name_hi = models.CharField(
        _("District Magistrate's office (second language)"), max_length=200, blank=True
    )
    dm_office_address = models.TextField(_("office address"), blank=True)
    dm_office_address_hi = models.TextField(_("office address (second language)"), blank=True)
    dm_office_phone = models.CharField(_("office telephone"), max_length=40, blank=True)

    objects = DistrictQuerySet.as_manager()

    class Meta:
        verbose_name = _("district")
        verbose_name_plural = _("districts")
        ordering = ["name"]

    def clean(self):
        super().clean()
        was = District.objects.filter(pk=self.pk).values_list("training", flat=True).first()
        if was and not self.training:
            raise ValidationError({"training": _("A training district stays one.")})
        if self.training and not was and Event.objects.filter(district_id=self.pk).exists():
            # Its chains are in the State's signed checkpoints already (ADR 0080).
            raise ValidationError(
                {"training": _("Only a district with no records yet can be marked for training.")}
            )

    @property
    def office_label(self):
        return (
            for_reader(None, self.dm_office_name_hi)
            or self.dm_office_name
            or _("Office of the District Magistrate, %(district)s") % {"district": self.label}
        )


class PoliceStationQuerySet(DistrictScopedQuerySet):
    pass


class PoliceStation(BilingualNameMixin):
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="police_stations")
    code = models.SlugField(_("code"), max_length=20, unique=True)
    address = models.TextField(_("address"), blank=True)

    objects = PoliceStationQuerySet.as_manager()

    class Meta:
        verbose_name = _("police station")
        verbose_name_plural = _("police stations")
        ordering = ["name"]


class PoundQuerySet(PoundScopedQuerySet):
    scope = "pk"

    def active(self, on=None):
        on = on or timezone.localdate()
        return self.filter(Q(active_from__lte=on), Q(active_to__isnull=True) | Q(active_to__gte=on))


class SlipPaper(models.TextChoices):
    A4 = "a4", _("A4 sheet")
    ROLL_80 = "roll80", _("80 mm thermal roll")


class Pound(UpiPayeeFields, BilingualNameMixin):
    """A pound established by the District Magistrate under s.4."""

    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="pounds")
    code = models.SlugField(_("code"), max_length=20, unique=True)
    address = models.TextField(_("location"), blank=True)
    address_hi = models.TextField(_("location (second language)"), blank=True)
    phone = models.CharField(_("telephone"), max_length=40, blank=True)
    hours = models.CharField(
        _("hours open"),
        max_length=120,
        blank=True,
        help_text=_("For example: 8 am to 6 pm, every day."),
    )
    hours_hi = models.CharField(_("hours open (second language)"), max_length=120, blank=True)
    slip_paper = models.CharField(
        _("paper for receipts and copies"),
        max_length=8,
        choices=SlipPaper,
        default=SlipPaper.A4,
        help_text=_(
            "The receipt, the deposit receipt and the s.8 copy are offered on this paper first; "
            "the other stays one click away."
        ),
    )
    nearest_police_station = models.ForeignKey(
        PoliceStation,
        on_delete=models.PROTECT,
        related_name="pounds",
        verbose_name=_("nearest police station"),
    )
    establishment_order = models.CharField(_("establishment order (s.4)"), max_length=120)
    establishment_order_date = models.DateField(_("order date"))
    active_from = models.DateField(_("active from"))
    active_to = models.DateField(_("active to"), null=True, blank=True)

    objects = PoundQuerySet.as_manager()

    class Meta:
        verbose_name = _("pound")
        verbose_name_plural = _("pounds")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(active_to__isnull=True) | Q(active_to__gte=models.F("active_from")),
                name="pound_active_range_ordered",
            )
        ]

    def clean(self):
        super().clean()
        if (
            self.nearest_police_station_id
            and self.district_id
            and self.nearest_police_station.district_id != self.district_id
        ):
            raise ValidationError(
                {"nearest_police_station": _("The police station must be in the pound's district.")}
            )

    @property
    def address_label(self):
        return for_reader(self.address, self.address_hi)

    @property
    def hours_label(self):
        return for_reader(self.hours, self.hours_hi)

    @property
    def slip_paper_name(self):
        """The paper its slips are offered on first, as a link to one names it."""
        return _("80 mm slip") if self.slip_paper == SlipPaper.ROLL_80 else _("A4")

    def villages_served(self, on=None):
        on = on or timezone.localdate()
        return Village.objects.filter(
            pound_links__in=PoundVillage.objects.filter(pound=self).in_force(on)
        ).distinct()


class Village(BilingualNameMixin):
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="villages")
    code = models.SlugField(_("code"), max_length=24, unique=True)
    has_market = models.BooleanField(
        _("has a market-place"),
        default=False,
        help_text=_("Used to suggest the market-place for a proclamation (s.14)."),
    )

    class Meta:
        verbose_name = _("village")
        verbose_name_plural = _("villages")
        ordering = ["name"]


class InForceQuerySet(models.QuerySet):
    """Rows with an effective-dated [valid_from, valid_to] range, both ends included."""

    def in_force(self, on):
        return self.filter(Q(valid_from__lte=on), Q(valid_to__isnull=True) | Q(valid_to__gte=on))

    def overlapping(self, valid_from, valid_to):
        q = Q(valid_to__isnull=True) | Q(valid_to__gte=valid_from)
        if valid_to is not None:
            q &= Q(valid_from__lte=valid_to)
        return self.filter(q)


class PoundVillage(models.Model):
    """Which pound serves a village, effective-dated, set by the DM's order (s.4)."""

    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, related_name="village_links")
    village = models.ForeignKey(Village, on_delete=models.PROTECT, related_name="pound_links")
    valid_from = models.DateField(_("valid from"))
    valid_to = models.DateField(_("valid to"), null=True, blank=True)
    order_reference = models.CharField(_("DM's order reference"), max_length=120)

    objects = InForceQuerySet.as_manager()

    class Meta:
        verbose_name = _("village served by a pound")
        verbose_name_plural = _("villages served by pounds")
        indexes = [models.Index(fields=["village", "valid_from"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gte=models.F("valid_from")),
                name="poundvillage_range_ordered",
            )
        ]

    def __str__(self):
        return f"{self.village} → {self.pound}"

    def clean(self):
        if self.pound_id and self.village_id and self.pound.district_id != self.village.district_id:
            raise ValidationError(_("A pound can serve only villages of its own district."))
        clash = (
            PoundVillage.objects.filter(village_id=self.village_id)
            .exclude(pk=self.pk)
            .overlapping(self.valid_from, self.valid_to)
        )
        if self.valid_from and clash.exists():
            raise ValidationError(
                _("This village is already served by another pound for part of these dates.")
            )


class StaffAssignmentQuerySet(InForceQuerySet):
    def active(self, on=None):
        return self.in_force(on or timezone.localdate()).filter(user__is_active=True)


class StaffAssignment(models.Model):
    """A user holds a role in one jurisdiction, from an appointment order (s.6, s.14)."""

    SCOPE_FIELDS = ("state", "district", "police_station", "pound")

    user = models.ForeignKey(User, on_delete=models.PROTECT, related_name="assignments")
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)
    state = models.ForeignKey(State, on_delete=models.PROTECT, null=True, blank=True)
    district = models.ForeignKey(District, on_delete=models.PROTECT, null=True, blank=True)
    police_station = models.ForeignKey(
        PoliceStation, on_delete=models.PROTECT, null=True, blank=True
    )
    pound = models.ForeignKey(Pound, on_delete=models.PROTECT, null=True, blank=True)
    valid_from = models.DateField(_("from"))
    valid_to = models.DateField(_("to"), null=True, blank=True)
    order_reference = models.CharField(_("appointment order"), max_length=120, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = StaffAssignmentQuerySet.as_manager()

    class Meta:
        verbose_name = _("staff assignment")
        verbose_name_plural = _("staff assignments")
        indexes = [models.Index(fields=["user", "valid_from"])]
        constraints = [
            # At most one jurisdiction is named; which one must fit the role (checked in clean()).
            models.CheckConstraint(
                condition=(
                    Q(state__isnull=False, district=None, police_station=None, pound=None)
                    | Q(state=None, district__isnull=False, police_station=None, pound=None)
                    | Q(state=None, district=None, police_station__isnull=False, pound=None)
                    | Q(state=None, district=None, police_station=None, pound__isnull=False)
                    | Q(state=None, district=None, police_station=None, pound=None)
                ),
                name="assignment_one_jurisdiction",
            ),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_to__gte=models.F("valid_from")),
                name="assignment_range_ordered",
            ),
        ]

    def __str__(self):
        return f"{self.user.display_name}: {self.get_role_display()} ({self.jurisdiction})"

    @property
    def scope(self):
        for field in self.SCOPE_FIELDS:
            if getattr(self, f"{field}_id"):
                return Scope(field)
        return Scope.NONE

    @property
    def jurisdiction(self):
        scope = self.scope
        return _("Whole system") if scope == Scope.NONE else getattr(self, scope.value)

    @property
    def district_of_scope(self):
        """The district the assignment sits in, or None for State- and system-wide roles."""
        if self.district_id:
            return self.district
        if self.police_station_id:
            return self.police_station.district
        if self.pound_id:
            return self.pound.district
        return None

    def is_active(self, on=None):
        on = on or timezone.localdate()
        return self.valid_from <= on and (self.valid_to is None or self.valid_to >= on)

    def clean(self):
        allowed = ROLE_SCOPES.get(self.role, frozenset())
        if self.role and self.scope not in allowed:
            raise ValidationError(
                _("A %(role)s is assigned to a %(scopes)s.")
                % {
                    "role": self.get_role_display(),
                    "scopes": ", ".join(str(Scope(s).label) for s in sorted(allowed)),
                }
            )


class Counter(models.Model):
    """Gap-free serial numbers. Take the next value inside the transaction that uses it."""

    key = models.CharField(max_length=120, unique=True)
    value = models.PositiveBigIntegerField(default=0)

    def __str__(self):
        return f"{self.key}={self.value}"

    @classmethod
    def next(cls, key):
        cls.objects.get_or_create(key=key)
        counter = cls.objects.select_for_update(of=("self",)).get(key=key)
        counter.value += 1
        counter.save(update_fields=["value"])
        return counter.value


class RateCount(models.Model):
    """A throttle's count in one window (say, /verify/ look-ups from one address in one
    minute), kept in PostgreSQL so that every app server adds to the same count: nothing may
    live only in one process. `accounts.throttle.hit` adds to it in one atomic statement."""

    key = models.CharField(max_length=200, unique=True)
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return f"{self.key}={self.count}"


class StateDocumentForm(models.Model):
    """The form number a State's rules give one kind of document (Kerala's receipt is Form III),
    printed in the letterhead of that document in every district of the State."""

    state = models.ForeignKey(State, on_delete=models.PROTECT, related_name="document_forms")
    kind = models.CharField(_("document"), max_length=40, choices=IssuedDocument.Kind.choices)
    number = models.CharField(_("form number"), max_length=40)
    number_hi = models.CharField(_("form number (second language)"), max_length=40, blank=True)
    rules = models.CharField(_("rules that give it"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("State form number")
        verbose_name_plural = _("State form numbers")
        constraints = [
            models.UniqueConstraint(fields=["state", "kind"], name="statedocumentform_one_per_kind")
        ]

    def __str__(self):
        return f"{self.state}: {self.get_kind_display()} = {self.number}"


class StaffEvent(models.Model):
    """Audit trail of appointments: who was given or lost a role, and who did it, when."""

    class Action(models.TextChoices):
        ASSIGNED = "assigned", _("Role assigned")
        ENDED = "ended", _("Role ended")
        CARD_ISSUED = "card_issued", _("Appointment card issued")
        TOKEN_CREATED = "token_created", _("API token created")
        TOKEN_REVOKED = "token_revoked", _("API token revoked")
        FACTOR_SET_UP = "factor_set_up", _("Second factor set up")
        RECOVERY_CODES = "recovery_codes", _("New recovery codes made")
        FACTOR_RESET = "factor_reset", _("Second factor reset")
        PASSKEY_ADDED = "passkey_added", _("Passkey added")
        PASSKEY_REMOVED = "passkey_removed", _("Passkey removed")
        RELATIVE_DECLARED = "relative_declared", _("Relative declared (s.19)")
        RELATIVE_AMENDED = "relative_amended", _("Relative's declaration corrected (s.19)")
        RELATIVE_REMOVED = "relative_removed", _("Relative's declaration withdrawn (s.19)")
        RELATIVES_ERASED = "relatives_erased", _("Declared relatives erased (retention)")

    user = models.ForeignKey(User, on_delete=models.PROTECT, related_name="staff_events")
    assignment = models.ForeignKey(
        StaffAssignment, on_delete=models.PROTECT, null=True, related_name="events"
    )
    action = models.CharField(max_length=20, choices=Action.choices)
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(User, on_delete=models.PROTECT, null=True, related_name="+")
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name = _("staff event")
        verbose_name_plural = _("staff events")
        ordering = ["-at"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_action_display()}"


class ToDo(models.Model):
    """Work waiting for a role in a jurisdiction: created by services and by the daily run, and
    closed when its condition no longer holds. The key makes creating it twice harmless."""

    key = models.CharField(max_length=120, unique=True)
    role = models.CharField(_("for"), max_length=20, choices=Role.choices)
    district = models.ForeignKey(District, on_delete=models.PROTECT, related_name="+")
    pound = models.ForeignKey(
        Pound, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    title = models.CharField(_("to do"), max_length=250)  # in English, for mail and old rows
    # The title as its template and arguments (kernel.messages), shown in the reader's
    # language; empty for to-dos made before it was kept.
    title_message = models.JSONField(default=dict, blank=True)
    url = models.CharField(max_length=250)
    section = models.CharField(_("section"), max_length=20, blank=True)
    due_on = models.DateField(_("due on"), null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    done_at = models.DateTimeField(null=True, blank=True)
    # When the worker mailed the people holding the role about it (accounts.todos.mail_todo).
    mailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("to-do")
        verbose_name_plural = _("to-dos")
        ordering = ["due_on", "created_at"]
        indexes = [models.Index(fields=["role", "district", "done_at"])]

    def __str__(self):
        return self.title

    @property
    def title_text(self):
        return shown(self.title_message, self.title)


# District policy: the choices the Act leaves to each district ---------------------------------


class FeedingRule(models.TextChoices):
    CALENDAR_DAYS = (
        "calendar_days",
        _(
            "Each calendar day or part of one, from the day of arrival to the day of release, "
            "both included"
        ),
    )
    BLOCKS_24H = "blocks_24h", _("Each 24 hours or part of 24 hours in custody")
    ARRIVAL_DAY_FREE = (
        "arrival_day_free",
        _("Each calendar day or part of one after the day of arrival, to the day of release"),
    )


class DistrictPolicy(models.Model):
    """The choices docs/domain.md leaves configurable per district, each with its default."""

    district = models.OneToOneField(District, on_delete=models.PROTECT, related_name="policy")
    feeding_rule = models.CharField(
        _("feeding charge rule"),
        max_length=20,
        choices=FeedingRule,
        default=FeedingRule.CALENDAR_DAYS,
    )
    transfer_limit_hours = models.PositiveSmallIntegerField(
        _("seizure to pound limit (hours)"), default=24
    )
    complaint_days = models.PositiveSmallIntegerField(_("days to complain (s.20)"), default=10)
    surplus_destination = models.CharField(
        _("surplus sale proceeds go to"),
        max_length=12,
        choices=[
            ("state", _("Revenues of the State (s.17)")),
            ("local_fund", _("Local fund (s.31)")),
        ],
        default="state",
    )
    local_fund_name = models.CharField(_("local fund"), max_length=150, blank=True)
    s31_notification = models.CharField(_("s.31 notification"), max_length=150, blank=True)

    class Meta:
        verbose_name = _("district policy")
        verbose_name_plural = _("district policies")

    def __str__(self):
        return str(self.district)

    @classmethod
    def prime(cls, districts):
        """Read the policies of several districts (instances, repeated or not) in one query,
        so that `for_district` on each asks nothing more."""
        districts = list(districts)
        found = cls.objects.in_bulk({d.pk for d in districts}, field_name="district_id")
        for district in districts:
            if district.pk in found:
                district._policy_cache = found[district.pk]

    @classmethod
    def for_district(cls, district):
        policy = getattr(district, "_policy_cache", None)
        if policy is None:
            policy, _created = cls.objects.get_or_create(district=district)
            district._policy_cache = policy
        return policy
