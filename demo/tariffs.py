"""A realistic scale of fines and feeding rates, used by the demo data and the tests.

Modelled on the Chandigarh notification under s.12 (see docs/domain.md §2.3): the five
categories and amounts of that scale, and feeding at ₹300 or ₹500 a day.
"""

from impounding.models import AgeClass, Species

FINE_CATEGORIES = [
    {
        "code": "1",
        "label": "Sheep, lamb, goat or kid",
        "label_hi": "भेड़, मेमना, बकरी या बकरी का बच्चा",
        "amount": "1400.00",
    },
    {
        "code": "2",
        "label": "Camel, donkey, pig, buffalo, cow, bull, bullock or heifer",
        "label_hi": "ऊँट, गधा, सूअर, भैंस, गाय, सांड, बैल या बछिया",
        "amount": "20000.00",
    },
    {
        "code": "3",
        "label": "Calf, including a calf still fed on its mother's milk",
        "label_hi": "बछड़ा, माँ का दूध पीने वाले बछड़े सहित",
        "amount": "3000.00",
    },
    {
        "code": "4",
        "label": "Horse, mare, pony or mule",
        "label_hi": "घोड़ा, घोड़ी, टट्टू या खच्चर",
        "amount": "1800.00",
    },
    {"code": "5", "label": "Any other animal", "label_hi": "कोई अन्य पशु", "amount": "4000.00"},
]

FINE_RULES = [
    {"species": Species.SHEEP, "category": "1"},
    {"species": Species.GOAT, "category": "1"},
    {"species": Species.CAMEL, "category": "2"},
    {"species": Species.ASS, "category": "2"},
    {"species": Species.PIG, "category": "2"},
    {"species": Species.BUFFALO, "category": "2"},
    {"species": Species.CATTLE, "category": "2"},
    {"species": Species.CATTLE, "age_class": AgeClass.YOUNG, "category": "3"},
    {"species": Species.BUFFALO, "age_class": AgeClass.YOUNG, "category": "3"},
    {"species": Species.HORSE, "category": "4"},
    {"species": Species.PONY, "category": "4"},
    {"species": Species.MULE, "category": "4"},
    {"species": Species.ELEPHANT, "category": "5"},
    {"species": Species.OTHER, "category": "5"},
]

LARGE = ("Large animal", "बड़ा पशु", "500.00")
SMALL = ("Small animal or young", "छोटा पशु या बच्चा", "300.00")


def feeding_rates(large="500.00", small="300.00"):
    rows = []
    for species in Species.values:
        size = SMALL if species in (Species.SHEEP, Species.GOAT, Species.PIG) else LARGE
        amount = small if size is SMALL else large
        rows.append({"species": species, "label": size[0], "label_hi": size[1], "amount": amount})
        if size is LARGE:
            rows.append(
                {
                    "species": species,
                    "age_class": AgeClass.YOUNG,
                    "label": SMALL[0],
                    "label_hi": SMALL[1],
                    "amount": small,
                }
            )
    return rows
