"""The templates of the owners' messages, in English, Hindi, Marathi and Tamil, as a State registers them on DLT
(ADR 0077). Their DLT ids are left blank: only the State's registration gives them, and a
message of a template without one is held, never sent to a gateway. Edited in the admin."""

from django.db import migrations

V = "{#var#}"
LINK = f"{V}{V}{V}"  # a link of up to 90 characters, 30 to a variable
LINK_VARS = ["link", "link", "link"]

TEMPLATES = [
    (
        "intake",
        "en",
        f"Your cattle are held at {V} pound, register entry {V}. Dues so far Rs {V}. Pay at the "
        f"pound, with proof that they are yours, to take them back. Pound phone {V}.",
        ["pound", "entry", "amount", "phone"],
    ),
    (
        "intake",
        "hi",
        f"आपके पशु {V} कांजी हाउस में रखे हैं, रजिस्टर प्रविष्टि {V}। अब तक देय रु {V}। स्वामित्व "
        f"का प्रमाण लेकर कांजी हाउस में भुगतान करें और पशु वापस ले जाएँ। कांजी हाउस फ़ोन {V}।",
        ["pound", "entry", "amount", "phone"],
    ),
    (
        "s14_report",
        "en",
        f"Your cattle of register entry {V} at {V} pound are reported to the police as unclaimed "
        f"(s.14). Dues Rs {V}. Pay at the pound before the sale to take them back.",
        ["entry", "pound", "amount"],
    ),
    (
        "s14_report",
        "hi",
        f"{V} कांजी हाउस की रजिस्टर प्रविष्टि {V} के आपके पशुओं की सूचना पुलिस को लावारिस के रूप "
        f"में दी गई है (धारा 14)। देय रु {V}। नीलामी से पहले कांजी हाउस में भुगतान कर पशु वापस लें।",
        ["pound", "entry", "amount"],
    ),
    (
        "notice_posted",
        "en",
        f"Notice of sale posted for your cattle of entry {V} at {V} pound. Auction on or after "
        f"{V} at {V}. Pay dues of Rs {V} at the pound before then to take them back.",
        ["entry", "pound", "date", "place", "amount"],
    ),
    (
        "notice_posted",
        "hi",
        f"{V} कांजी हाउस की प्रविष्टि {V} के आपके पशुओं की नीलामी की सूचना लगाई गई है। नीलामी {V} "
        f"या उसके बाद {V} में। उससे पहले कांजी हाउस में देय रु {V} का भुगतान कर पशु वापस लें।",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "auction_tomorrow",
        "en",
        f"Your cattle of entry {V} at {V} pound are to be auctioned tomorrow, {V}, at {V}. Pay "
        f"dues of Rs {V} at the pound before the sale to take them back.",
        ["entry", "pound", "date", "place", "amount"],
    ),
    (
        "auction_tomorrow",
        "hi",
        f"{V} कांजी हाउस की प्रविष्टि {V} के आपके पशुओं की नीलामी कल {V} को {V} में होगी। नीलामी "
        f"से पहले कांजी हाउस में देय रु {V} का भुगतान कर पशु वापस लें।",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "released",
        "en",
        f"Your cattle of entry {V} were released at {V} pound on payment of Rs {V}, receipt {V}. "
        f"Check the receipt at {LINK}",
        ["entry", "pound", "amount", "receipt", *LINK_VARS],
    ),
    (
        "released",
        "hi",
        f"{V} कांजी हाउस से प्रविष्टि {V} के आपके पशु रु {V} के भुगतान पर छोड़े गए, रसीद {V}। "
        f"रसीद की जाँच करें: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "deposit",
        "en",
        f"Your cattle of entry {V} were released at {V} pound on a deposit of Rs {V}, receipt {V}. "
        f"Keep it to claim the deposit back if your complaint succeeds. Check it at {LINK}",
        ["entry", "pound", "amount", "receipt", *LINK_VARS],
    ),
    (
        "deposit",
        "hi",
        f"{V} कांजी हाउस से प्रविष्टि {V} के आपके पशु रु {V} जमा करने पर छोड़े गए, रसीद {V}। "
        f"शिकायत सफल होने पर जमा वापस पाने के लिए इसे रखें। जाँच करें: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "surplus",
        "en",
        f"Rs {V} is left over from the sale of your cattle of entry {V} at {V} pound. Claim it at "
        f"the District Magistrate's office, with proof that they were yours, by {V}.",
        ["amount", "entry", "pound", "date"],
    ),
    (
        "surplus",
        "hi",
        f"{V} कांजी हाउस की प्रविष्टि {V} के आपके पशुओं की बिक्री से रु {V} का अधिशेष बचा है। "
        f"स्वामित्व के प्रमाण के साथ {V} तक जिला मजिस्ट्रेट कार्यालय में इसका दावा करें।",
        ["pound", "entry", "amount", "date"],
    ),
    (
        "one_time_code",
        "en",
        f"{V} is your code to confirm your phone for a report of lost cattle. Do not share it "
        "with anyone.",
        ["code"],
    ),
    (
        "one_time_code",
        "hi",
        f"{V} खोए पशुओं की रिपोर्ट के लिए आपके फ़ोन की पुष्टि का कोड है। इसे किसी को न बताएँ।",
        ["code"],
    ),
]


# Marathi and Tamil, for the States whose owners read them (the words of docs/glossary-mr.md and
# docs/glossary-ta.md).
TEMPLATES += [
    (
        "intake",
        "mr",
        f"तुमची गुरे {V} कोंडवाड्यात आहेत, नोंद क्रमांक {V}. आतापर्यंतची देय रक्कम रु {V}. मालकीचा "
        f"पुरावा घेऊन कोंडवाड्यात रक्कम भरा आणि गुरे परत न्या. कोंडवाडा फोन {V}.",
        ["pound", "entry", "amount", "phone"],
    ),
    (
        "s14_report",
        "mr",
        f"{V} कोंडवाड्यातील नोंद {V} मधील तुमची गुरे बेवारस म्हणून पोलिसांना कळवली आहेत (कलम 14). "
        f"देय रु {V}. लिलावापूर्वी कोंडवाड्यात रक्कम भरून गुरे परत न्या.",
        ["pound", "entry", "amount"],
    ),
    (
        "notice_posted",
        "mr",
        f"{V} कोंडवाड्यातील नोंद {V} मधील तुमच्या गुरांच्या लिलावाची सूचना लावली आहे. लिलाव {V} "
        f"किंवा नंतर, {V} येथे. त्यापूर्वी कोंडवाड्यात देय रु {V} भरून गुरे परत न्या.",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "auction_tomorrow",
        "mr",
        f"{V} कोंडवाड्यातील नोंद {V} मधील तुमच्या गुरांचा लिलाव उद्या {V} रोजी {V} येथे आहे. "
        f"लिलावापूर्वी कोंडवाड्यात देय रु {V} भरून गुरे परत न्या.",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "released",
        "mr",
        f"{V} कोंडवाड्यातून नोंद {V} मधील तुमची गुरे रु {V} भरल्यावर सोडली, पावती {V}. पावती "
        f"तपासा: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "deposit",
        "mr",
        f"{V} कोंडवाड्यातून नोंद {V} मधील तुमची गुरे रु {V} अनामत ठेवल्यावर सोडली, पावती {V}. "
        f"तक्रार यशस्वी झाल्यास अनामत परत मिळवण्यासाठी ती जपून ठेवा. तपासा: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "surplus",
        "mr",
        f"{V} कोंडवाड्यातील नोंद {V} मधील तुमच्या गुरांच्या विक्रीतून रु {V} अधिशेष उरला आहे. "
        f"मालकीच्या पुराव्यासह {V} पर्यंत जिल्हा दंडाधिकारी कार्यालयात त्यावर दावा करा.",
        ["pound", "entry", "amount", "date"],
    ),
    (
        "one_time_code",
        "mr",
        f"{V} हा हरवलेल्या गुरांच्या तक्रारीसाठी तुमचा फोन पडताळणी कोड आहे. तो कोणालाही सांगू नका.",
        ["code"],
    ),
    (
        "intake",
        "ta",
        f"உங்கள் கால்நடைகள் {V} பட்டியில் உள்ளன, பதிவு எண் {V}. இதுவரை செலுத்த வேண்டியது ரூ {V}. "
        f"உரிமைச் சான்றுடன் பட்டியில் செலுத்தி கால்நடைகளைத் திரும்பப் பெறுங்கள். பட்டி தொலைபேசி {V}.",
        ["pound", "entry", "amount", "phone"],
    ),
    (
        "s14_report",
        "ta",
        f"{V} பட்டியின் பதிவு {V} இல் உள்ள உங்கள் கால்நடைகள் கோரப்படாதவை எனக் காவல்துறைக்கு "
        f"அறிக்கையிடப்பட்டன (பிரிவு 14). செலுத்த வேண்டியது ரூ {V}. ஏலத்திற்கு முன் பட்டியில் "
        "செலுத்தி அவற்றைத் திரும்பப் பெறுங்கள்.",
        ["pound", "entry", "amount"],
    ),
    (
        "notice_posted",
        "ta",
        f"{V} பட்டியின் பதிவு {V} இல் உள்ள உங்கள் கால்நடைகளின் விற்பனை அறிவிப்பு ஒட்டப்பட்டது. "
        f"ஏலம் {V} அன்று அல்லது பின்னர், {V} இல். அதற்கு முன் பட்டியில் ரூ {V} செலுத்தி "
        "அவற்றைத் திரும்பப் பெறுங்கள்.",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "auction_tomorrow",
        "ta",
        f"{V} பட்டியின் பதிவு {V} இல் உள்ள உங்கள் கால்நடைகள் நாளை {V} அன்று {V} இல் ஏலம் "
        f"விடப்படும். ஏலத்திற்கு முன் பட்டியில் ரூ {V} செலுத்தி அவற்றைத் திரும்பப் பெறுங்கள்.",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "released",
        "ta",
        f"{V} பட்டியிலிருந்து பதிவு {V} இன் உங்கள் கால்நடைகள் ரூ {V} செலுத்தியதும் "
        f"விடுவிக்கப்பட்டன, ரசீது {V}. ரசீதைச் சரிபார்க்க: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "deposit",
        "ta",
        f"{V} பட்டியிலிருந்து பதிவு {V} இன் உங்கள் கால்நடைகள் ரூ {V} வைப்புத்தொகையில் "
        f"விடுவிக்கப்பட்டன, ரசீது {V}. புகார் வெற்றி பெற்றால் வைப்பைத் திரும்பப் பெற இதை "
        f"வைத்திருங்கள். சரிபார்க்க: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "surplus",
        "ta",
        f"{V} பட்டியின் பதிவு {V} இல் உள்ள உங்கள் கால்நடைகளின் விற்பனையில் ரூ {V} உபரி உள்ளது. "
        f"உரிமைச் சான்றுடன் {V} க்குள் மாவட்ட நடுவர் அலுவலகத்தில் அதைக் கோருங்கள்.",
        ["pound", "entry", "amount", "date"],
    ),
    (
        "one_time_code",
        "ta",
        f"{V} என்பது காணாமல் போன கால்நடைகள் புகாருக்கான உங்கள் தொலைபேசி சரிபார்ப்புக் குறியீடு. "
        "இதை யாரிடமும் பகிர வேண்டாம்.",
        ["code"],
    ),
]

def seed(apps, schema_editor):
    Template = apps.get_model("messaging", "Template")
    for event, language, text, variables in TEMPLATES:
        Template.objects.get_or_create(
            event=event,
            language=language,
            defaults={"text": text, "variables": variables, "category": "service_implicit"},
        )


def unseed(apps, schema_editor):
    Template = apps.get_model("messaging", "Template")
    for event, language, _text, _variables in TEMPLATES:
        Template.objects.filter(event=event, language=language, dlt_template_id="").delete()


class Migration(migrations.Migration):
    dependencies = [("messaging", "0001_messages_and_templates")]

    operations = [migrations.RunPython(seed, unseed)]
