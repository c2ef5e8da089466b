from django.urls import include, path

from .views import (
    cancellations,
    claims,
    court,
    custody,
    documents,
    files,
    lost,
    owners,
    register,
    releases,
    tariffs,
)

app_name = "impounding"

entry_patterns = [
    path("", register.entry, name="entry"),
    path("amend/", register.entry_amend, name="entry_amend"),
    path("owner-from-tag/", owners.entry_owner_from_tag, name="entry_owner_from_tag"),
    path("release/", releases.release, name="release"),
    path("deposit/", releases.deposit, name="deposit"),
    path("court-order/", releases.court_order, name="court_order"),
    path("complaint/", court.complaint_new, name="complaint_new"),
    path("claim/", claims.claim_new, name="claim_new"),
    path("claims/decide/", claims.claims_decide, name="claims_decide"),
    path("inspection/", custody.inspection_new, name="inspection_new"),
    path("unfit/<int:finding>/", custody.direction_new, name="direction_new"),
    path("copy.pdf", documents.entry_copy_pdf, name="entry_copy_pdf"),
    path("statement.pdf", documents.statement_pdf, name="statement_pdf"),
]

animal_patterns = [
    path("amend/", register.animal_amend, name="animal_amend"),
    path("death/", custody.animal_death, name="animal_death"),
    path("escape/", custody.animal_escape, name="animal_escape"),
    path("return/", custody.animal_return, name="animal_return"),
    path("birth/", custody.animal_birth, name="animal_birth"),
]

urlpatterns = [
    path("", register.today, name="today"),
    path("register/", register.register, name="register"),
    path("register/new/", register.entry_new, name="entry_new"),
    path("entries/<int:pk>/", include(entry_patterns)),
    path("animals/<int:pk>/", include(animal_patterns)),
    path("animals/<int:pk>/photo/", files.animal_photo, name="animal_photo"),
    path("releases/<int:pk>/signature/", files.release_signature, name="release_signature"),
    path("court-orders/<int:pk>/scan/", files.court_order_scan, name="court_order_scan"),
    path("receipts/<int:pk>.pdf", documents.receipt_pdf, name="receipt_pdf"),
    path("receipts/<int:pk>/cancel/", cancellations.receipt_cancel, name="receipt_cancel"),
    path(
        "receipt-cancellations/<int:pk>/",
        cancellations.receipt_cancellation_decide,
        name="receipt_cancellation_decide",
    ),
    path("pounds/<int:pk>/feeding/", custody.feeding_log, name="feeding_log"),
    path("pounds/<int:pk>/schedule.pdf", documents.schedule_pdf, name="schedule_pdf"),
    path("complaints/<int:pk>/decide/", court.complaint_decide, name="complaint_decide"),
    path("lost/", lost.matches, name="lost_matches"),
    path("lost/<int:pk>/decide/", lost.decide, name="lost_decide"),
    path("deposits/", court.deposits, name="deposits"),
    path("deposits/<int:pk>/apply/", court.deposit_apply, name="deposit_apply"),
    path("deposits/<int:pk>/refund/", court.deposit_refund, name="deposit_refund"),
    path("tariffs/", tariffs.tariffs, name="tariffs"),
    path("tariffs/fines/new/", tariffs.fine_scale_new, name="fine_scale_new"),
    path("tariffs/fines/<int:pk>/", tariffs.fine_scale, name="fine_scale"),
    path("tariffs/feeding/new/", tariffs.feeding_order_new, name="feeding_order_new"),
    path("tariffs/feeding/<int:pk>/", tariffs.feeding_order, name="feeding_order"),
]
