"""The register's event actions, each with the label the entry's timeline shows."""

from django.utils.translation import gettext_lazy as _

from kernel.events import EventAction


class Action(EventAction):
    REGISTER_ENTERED = "register.entered", _("Entered in the register")
    REGISTER_AMENDED = "register.amended", _("Register corrected")
    REGISTER_PHOTO_ADDED = "register.photo_added", _("Photo added from the field app")
    REGISTER_OWNER_FROM_TAG = "register.owner_from_tag", _("Owner confirmed from the ear tag")
    REGISTER_COPY_ISSUED = "register.copy_issued", _("Copy of the entry issued to the seizer")
    CUSTODY_DIED = "custody.died", _("Died")
    CUSTODY_ESCAPED = "custody.escaped", _("Escaped")
    CUSTODY_RESCUED = "custody.rescued", _("Rescued from custody")
    CUSTODY_RETURNED = "custody.returned", _("Back in the pound")
    CUSTODY_BORN = "custody.born", _("Calf born in the pound")
    CUSTODY_FED = "custody.fed", _("Fed and watered")
    INSPECTION_RECORDED = "custody.inspected", _("Veterinary inspection recorded")
    UNFIT_DIRECTED = (
        "custody.unfit_directed",
        _("Magistrate's direction for an unfit animal recorded"),
    )
    RELEASE_PAID = "release.paid", _("Released on payment")
    RELEASE_DEPOSIT = "release.deposit", _("Released on deposit")
    RELEASE_COURT_ORDER = "release.court_order", _("Released by court order")
    COURT_ORDER_RECORDED = "release.court_order_recorded", _("Court order recorded, to be checked")
    COURT_ORDER_REJECTED = "release.court_order_rejected", _("Court order rejected on the check")
    COURT_ORDER_CHECKED = "release.court_order_checked", _("Court order checked after the release")
    CLAIM_RECORDED = "claim.recorded", _("Claimant recorded")
    CLAIMS_HELD = "claim.hold", _("Release on hold: competing claims")
    CLAIMS_DECIDED = "claim.decided", _("Competing claims decided")
    RECEIPT_CANCELLATION_ASKED = "receipt.cancellation_asked", _("Receipt cancellation asked for")
    RECEIPT_CANCELLED = "receipt.cancelled", _("Receipt cancelled: animals back in custody")
    RECEIPT_CANCELLATION_REFUSED = "receipt.cancellation_refused", _("Receipt cancellation refused")
    COMPLAINT_RECORDED = "complaint.recorded", _("Complaint recorded")
    COMPLAINT_UPHELD = "complaint.upheld", _("Complaint upheld: seizure illegal")
    COMPLAINT_DISMISSED = "complaint.dismissed", _("Complaint dismissed")
    DEPOSIT_APPLIED = "deposit.applied", _("Deposit applied as payment")
    DEPOSIT_REFUNDED = "deposit.refunded", _("Deposit refunded")
    LOST_MATCH_CONFIRMED = "lost.match_confirmed", _("Matched to a lost-cattle report")
    LOST_MATCH_REJECTED = "lost.match_rejected", _("Not the animal of a lost-cattle report")
    TARIFF_FINE_SCALE_RECORDED = "tariff.fine_scale_recorded", _("Fine scale recorded")
    TARIFF_FEEDING_ORDER_RECORDED = "tariff.feeding_order_recorded", _("Feeding rates recorded")
