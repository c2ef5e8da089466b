"""Demo jurisdictions and staff, shared by `manage.py seed_demo` and the browser tests."""

from datetime import date

from django.db import transaction

from accounts import services
from accounts.models import (
    District,
    PoliceStation,
    Pound,
    PoundVillage,
    StaffAssignment,
    State,
    User,
    Village,
)
from accounts.roles import Role

DEMO_PASSWORD = "demo-pass-2026"
SINCE = date(2024, 4, 1)

STATE = {"code": "up", "name": "Uttar Pradesh", "name_hi": "उत्तर प्रदेश"}

DISTRICTS = [
    {
        "code": "lko",
        "name": "Lucknow",
        "name_hi": "लखनऊ",
        "dm_office_name": "Office of the District Magistrate, Lucknow",
        "dm_office_name_hi": "कार्यालय ज़िलाधिकारी, लखनऊ",
        "dm_office_address": "Collectorate, Kaiserbagh, Lucknow 226001",
        "dm_office_address_hi": "कलेक्ट्रेट, कैसरबाग, लखनऊ 226001",
        "dm_office_phone": "0522-2623000",
        # The dues are paid by UPI into the District Magistrate's account (ADR 0076); Barabanki
        # has none, and shows why there is no QR code.
        "upi_vpa": "dm.lucknow@sbi",
        "upi_payee_name": "District Magistrate Lucknow",
        "stations": [
            {"code": "lko-mlg", "name": "Mohanlalganj", "name_hi": "मोहनलालगंज"},
            {"code": "lko-mlh", "name": "Malihabad", "name_hi": "मलिहाबाद"},
        ],
        "pounds": [
            {
                "code": "lko-mlg-kh",
                "name": "Mohanlalganj Kanji House",
                "name_hi": "मोहनलालगंज कांजी हाउस",
                "station": "lko-mlg",
                "address": (
                    "Near the tehsil, Sultanpur Road, Mohanlalganj, Lucknow 226301",
                    "तहसील के पास, सुल्तानपुर रोड, मोहनलालगंज, लखनऊ 226301",
                ),
                "phone": "0522-2911234",
                "slip_paper": "roll80",
                "order": "DM/LKO/Pound/12/2019",
                "villages": [
                    ("lko-nigohan", "Nigohan", "निगोहां", True),
                    ("lko-samesi", "Samesi", "समेसी", False),
                    ("lko-gosainganj", "Gosainganj", "गोसाईगंज", True),
                ],
            },
            {
                "code": "lko-mlh-kh",
                "name": "Malihabad Kanji House",
                "name_hi": "मलिहाबाद कांजी हाउस",
                "station": "lko-mlh",
                "address": (
                    "Hardoi Road, Malihabad, Lucknow 226102",
                    "हरदोई रोड, मलिहाबाद, लखनऊ 226102",
                ),
                "phone": "0522-2960045",
                "order": "DM/LKO/Pound/13/2019",
                "villages": [
                    ("lko-rahimabad", "Rahimabad", "रहीमाबाद", True),
                    ("lko-mal", "Mal", "माल", False),
                ],
            },
        ],
    },
    {
        "code": "bbk",
        "name": "Barabanki",
        "name_hi": "बाराबंकी",
        "dm_office_name": "Office of the District Magistrate, Barabanki",
        "dm_office_name_hi": "कार्यालय ज़िलाधिकारी, बाराबंकी",
        "dm_office_address": "Collectorate, Barabanki 225001",
        "dm_office_address_hi": "कलेक्ट्रेट, बाराबंकी 225001",
        "dm_office_phone": "05248-222001",
        "stations": [
            {"code": "bbk-dewa", "name": "Dewa", "name_hi": "देवा"},
            {"code": "bbk-ramnagar", "name": "Ramnagar", "name_hi": "रामनगर"},
        ],
        "pounds": [
            {
                "code": "bbk-dewa-kh",
                "name": "Dewa Kanji House",
                "name_hi": "देवा कांजी हाउस",
                "station": "bbk-dewa",
                "address": (
                    "Dewa Sharif Road, Dewa, Barabanki 225301",
                    "देवा शरीफ़ रोड, देवा, बाराबंकी 225301",
                ),
                "phone": "05248-250310",
                "order": "DM/BBK/Pound/4/2020",
                "villages": [
                    ("bbk-kursi", "Kursi", "कुर्सी", True),
                    ("bbk-safdarganj", "Safdarganj", "सफदरगंज", False),
                ],
            },
        ],
    },
]

DISTRICTS.append(
    # A district for training (ADR 0080): its clock moves forward from its trainer's page, and
    # nothing done in it touches Lucknow's or Barabanki's books, chains or serial numbers.
    {
        "code": "trn",
        "name": "Training District",
        "name_hi": "प्रशिक्षण ज़िला",
        "training": True,
        "dm_office_name": "Office of the District Magistrate, Training District",
        "dm_office_name_hi": "कार्यालय ज़िलाधिकारी, प्रशिक्षण ज़िला",
        "dm_office_address": "Training Hall, Collectorate, Lucknow 226001",
        "dm_office_address_hi": "प्रशिक्षण कक्ष, कलेक्ट्रेट, लखनऊ 226001",
        "dm_office_phone": "0522-2623099",
        "stations": [{"code": "trn-ps", "name": "Training Thana", "name_hi": "प्रशिक्षण थाना"}],
        "pounds": [
            {
                "code": "trn-kh",
                "name": "Training Kanji House",
                "name_hi": "प्रशिक्षण कांजी हाउस",
                "station": "trn-ps",
                "address": ("Training yard, Lucknow 226001", "प्रशिक्षण प्रांगण, लखनऊ 226001"),
                "phone": "0522-2623098",
                "order": "DM/TRN/Pound/1/2026",
                "villages": [
                    ("trn-gaon", "Training Gaon", "प्रशिक्षण गाँव", False),
                    ("trn-haat", "Training Haat", "प्रशिक्षण हाट", True),
                ],
            },
        ],
    }
)

# (username, first name, last name, Hindi name, phone, role, jurisdiction kind, jurisdiction code)
USERS = [
    (
        "keeper",
        "Ramesh",
        "Yadav",
        "रमेश यादव",
        "9450000001",
        Role.POUND_KEEPER,
        "pound",
        "lko-mlg-kh",
    ),
    (
        "officer",
        "Sunil",
        "Verma",
        "सुनील वर्मा",
        "9450000002",
        Role.POLICE_OFFICER,
        "police_station",
        "lko-mlg",
    ),
    (
        "clerk",
        "Anita",
        "Srivastava",
        "अनीता श्रीवास्तव",
        "9450000003",
        Role.DM_CLERK,
        "district",
        "lko",
    ),
    ("magistrate", "Meera", "Singh", "मीरा सिंह", "9450000004", Role.MAGISTRATE, "district", "lko"),
    ("auditor", "Prakash", "Mishra", "प्रकाश मिश्र", "9450000005", Role.AUDITOR, "state", "up"),
    ("admin", "Vikas", "Gupta", "विकास गुप्ता", "9450000006", Role.ADMINISTRATOR, None, None),
    (
        "keeper_bbk",
        "Mohan",
        "Lal",
        "मोहन लाल",
        "9450000011",
        Role.POUND_KEEPER,
        "pound",
        "bbk-dewa-kh",
    ),
    (
        "officer_bbk",
        "Imran",
        "Khan",
        "इमरान ख़ान",
        "9450000012",
        Role.POLICE_OFFICER,
        "police_station",
        "bbk-dewa",
    ),
    ("clerk_bbk", "Neha", "Tiwari", "नेहा तिवारी", "9450000013", Role.DM_CLERK, "district", "bbk"),
    (
        "magistrate_bbk",
        "Arun",
        "Pandey",
        "अरुण पाण्डेय",
        "9450000014",
        Role.MAGISTRATE,
        "district",
        "bbk",
    ),
]
# The training district's staff: its Magistrate is the trainer who moves its clock.
USERS += [
    ("keeper_trn", "Kiran", "Devi", "किरण देवी", "9450000021", Role.POUND_KEEPER, "pound", "trn-kh"),
    (
        "officer_trn",
        "Ajay",
        "Rawat",
        "अजय रावत",
        "9450000022",
        Role.POLICE_OFFICER,
        "police_station",
        "trn-ps",
    ),
    ("clerk_trn", "Pooja", "Saxena", "पूजा सक्सेना", "9450000023", Role.DM_CLERK, "district", "trn"),
    (
        "magistrate_trn",
        "Rakesh",
        "Dubey",
        "राकेश दुबे",
        "9450000024",
        Role.MAGISTRATE,
        "district",
        "trn",
    ),
]

MODELS = {"state": State, "district": District, "police_station": PoliceStation, "pound": Pound}


@transaction.atomic
def seed_jurisdictions():
    state, _ = State.objects.update_or_create(code=STATE["code"], defaults=STATE)
    for d in DISTRICTS:
        district, _ = District.objects.update_or_create(
            code=d["code"],
            defaults={
                "state": state,
                **{
                    k: d[k]
                    for k in (
                        "name",
                        "name_hi",
                        "dm_office_name",
                        "dm_office_name_hi",
                        "dm_office_address",
                        "dm_office_address_hi",
                        "dm_office_phone",
                    )
                },
                "upi_vpa": d.get("upi_vpa", ""),
                "upi_payee_name": d.get("upi_payee_name", ""),
                "training": d.get("training", False),
            },
        )
        for s in d["stations"]:
            PoliceStation.objects.update_or_create(
                code=s["code"],
                defaults={"district": district, "name": s["name"], "name_hi": s["name_hi"]},
            )
        for p in d["pounds"]:
            pound, _ = Pound.objects.update_or_create(
                code=p["code"],
                defaults={
                    "district": district,
                    "name": p["name"],
                    "name_hi": p["name_hi"],
                    "address": p["address"][0],
                    "address_hi": p["address"][1],
                    "phone": p["phone"],
                    "hours": "8 am to 6 pm, every day",
                    "hours_hi": "सुबह 8 बजे से शाम 6 बजे तक, प्रतिदिन",
                    "slip_paper": p.get("slip_paper", "a4"),
                    "nearest_police_station": PoliceStation.objects.get(code=p["station"]),
                    "establishment_order": p["order"],
                    "establishment_order_date": date(2019, 6, 1),
                    "active_from": date(2019, 7, 1),
                },
            )
            for code, name, name_hi, market in p["villages"]:
                village, _ = Village.objects.update_or_create(
                    code=code,
                    defaults={
                        "district": district,
                        "name": name,
                        "name_hi": name_hi,
                        "has_market": market,
                    },
                )
                if not PoundVillage.objects.filter(pound=pound, village=village).exists():
                    link = PoundVillage(
                        pound=pound,
                        village=village,
                        valid_from=date(2019, 7, 1),
                        order_reference=p["order"],
                    )
                    link.full_clean()
                    link.save()
    return state


@transaction.atomic
def seed_users(password=DEMO_PASSWORD):
    created = []
    for username, first, last, name_hi, phone, role, kind, code in USERS:
        user, was_created = User.objects.get_or_create(
            username=username,
            defaults={
                "first_name": first,
                "last_name": last,
                "name_hi": name_hi,
                "phone": phone,
                "email": f"{username}@example.invalid",
                "id_number": f"EMP-{phone[-4:]}",
            },
        )
        if was_created:
            user.set_password(password)
            if role == Role.ADMINISTRATOR:
                user.is_staff = user.is_superuser = True
            user.save()
            created.append(username)
        jurisdiction = {kind: MODELS[kind].objects.get(code=code)} if kind else {}
        if not StaffAssignment.objects.filter(user=user, role=role, **jurisdiction).exists():
            services.assign_role(
                user=user,
                role=role,
                by=None,
                valid_from=SINCE,
                order_reference="Demo appointment",
                **jurisdiction,
            )
    return created


def seed_all(password=DEMO_PASSWORD):
    seed_jurisdictions()
    return seed_users(password)
