from datetime import date

import factory
from django.test import Client
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import models
from accounts.roles import Role
from accounts.scoping import forget_grants
from accounts.twofactor import NO_FACTOR_KEY, has_second_factor, must_have_second_factor


class StateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.State
        django_get_or_create = ("code",)

    code = "up"
    name = "Uttar Pradesh"
    name_hi = "उत्तर प्रदेश"


class DistrictFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.District

    state = factory.SubFactory(StateFactory)
    code = factory.Sequence(lambda n: f"d{n}")
    name = factory.Sequence(lambda n: f"District {n}")
    name_hi = factory.Sequence(lambda n: f"ज़िला {n}")
    dm_office_name = factory.LazyAttribute(lambda o: f"Office of the District Magistrate, {o.name}")
    dm_office_name_hi = factory.LazyAttribute(lambda o: f"कार्यालय ज़िलाधिकारी, {o.name_hi}")


class PoliceStationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.PoliceStation

    district = factory.SubFactory(DistrictFactory)
    code = factory.Sequence(lambda n: f"ps{n}")
    name = factory.Sequence(lambda n: f"Police Station {n}")
    name_hi = factory.Sequence(lambda n: f"थाना {n}")


class PoundFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Pound

    district = factory.SubFactory(DistrictFactory)
    nearest_police_station = factory.SubFactory(
        PoliceStationFactory, district=factory.SelfAttribute("..district")
    )
    code = factory.Sequence(lambda n: f"pound{n}")
    name = factory.Sequence(lambda n: f"Pound {n}")
    name_hi = factory.Sequence(lambda n: f"कांजी हाउस {n}")
    establishment_order = factory.Sequence(lambda n: f"DM/Pound/{n}/2019")
    establishment_order_date = date(2019, 6, 1)
    active_from = date(2019, 7, 1)


class VillageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Village

    district = factory.SubFactory(DistrictFactory)
    code = factory.Sequence(lambda n: f"v{n}")
    name = factory.Sequence(lambda n: f"Village {n}")
    name_hi = factory.Sequence(lambda n: f"गाँव {n}")


class PoundVillageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.PoundVillage

    pound = factory.SubFactory(PoundFactory)
    village = factory.SubFactory(VillageFactory, district=factory.SelfAttribute("..pound.district"))
    valid_from = date(2019, 7, 1)
    order_reference = "DM/Villages/1/2019"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    phone = factory.Sequence(lambda n: f"98{n:08d}")
    password = factory.PostGenerationMethodCall("set_password", "correct-horse-battery")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class StaffAssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.StaffAssignment

    user = factory.SubFactory(UserFactory)
    role = Role.POUND_KEEPER
    valid_from = date(2024, 4, 1)
    order_reference = "Order 1/2024"


def staff(role, username=None, **jurisdiction):
    """A user holding one role in one jurisdiction (pound=, police_station=, district=, state=)."""
    kwargs = {"username": username} if username else {}
    user = UserFactory(**kwargs)
    StaffAssignmentFactory(user=user, role=role, **jurisdiction)
    return user


# --- The second factor (docs/decisions/0053-second-factor.md) ------------------------------
# `client.force_login(user)` in the suite signs in with both factors done (tests/conftest.py):
# a user whose role requires a second factor, or who has one, is given a confirmed authenticator
# and the session is marked verified, as after giving its code. A test of the rule itself signs
# in with the password alone through `password_only_login`.

_force_login = Client.force_login


def confirmed_authenticator(user):
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="authenticator", confirmed=True)


def totp_code(device, *, step=0):
    """The code the authenticator shows now (or `step` periods on)."""
    at = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    at.time = at.time + step * device.step
    return f"{at.token():0{device.digits}d}"


def verify_session(client, user):
    """Mark the client's session as having given the second factor, where the user needs it."""
    forget_grants(user)
    session = client.session
    if must_have_second_factor(user) or has_second_factor(user):
        session[DEVICE_ID_SESSION_KEY] = confirmed_authenticator(user).persistent_id
    else:  # as after the sign-in's first page, which found no authenticator
        session[NO_FACTOR_KEY] = user.pk
    session.save()


def force_login_with_second_factor(client, user, backend=None):
    _force_login(client, user, backend)
    verify_session(client, user)


def password_only_login(client, user):
    """Signed in with the password, the second factor not given yet."""
    _force_login(client, user)
