from datetime import date

import factory

from accounts import models
from accounts.roles import Role


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
