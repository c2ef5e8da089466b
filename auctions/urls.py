from django.urls import path

from .views import auction, disposal, documents, files, gaushala, s16, unclaimed

app_name = "auctions"

urlpatterns = [
    # The first clock and the report (pound-keeper), the notice and proclamation (officer).
    path("reports/due/", unclaimed.reports_due, name="reports_due"),
    path("entries/<int:pk>/report/", unclaimed.report_send, name="report_send"),
    path("reports/", unclaimed.reports, name="reports"),
    path("reports/<int:pk>/", unclaimed.report, name="report"),
    path("reports/<int:pk>/report.pdf", documents.report_pdf, name="report_pdf"),
    path("reports/<int:pk>/notice/", unclaimed.notice_post, name="notice_post"),
    path("notices/<int:pk>/notice.pdf", documents.notice_pdf, name="notice_pdf"),
    path("notices/<int:pk>/proclamation/", unclaimed.proclamation_new, name="proclamation_new"),
    # Stored files, behind the record's permissions; the board's photos are public.
    path("proclamations/<int:pk>/photo/", files.proclamation_photo, name="proclamation_photo"),
    path("s16/<int:pk>/signature/", files.s16_signature, name="s16_signature"),
    path("board/photos/<int:pk>/", files.board_photo, name="board_photo"),
    # The District Magistrate's standing orders and the auctions.
    path("conditions/", auction.conditions, name="conditions"),
    path("conditions/new/", auction.conditions_new, name="conditions_new"),
    path("", auction.auctions, name="auctions"),
    path("new/", auction.auction_new, name="auction_new"),
    path("<int:pk>/", auction.auction, name="auction"),
    path("<int:pk>/bidders/new/", auction.bidder_new, name="bidder_new"),
    path("<int:pk>/close/", auction.auction_close, name="auction_close"),
    path("bidders/<int:pk>/override/", auction.bidder_override, name="bidder_override"),
    path("bidders/<int:pk>/recheck/", auction.bidder_recheck, name="bidder_recheck"),
    path("lots/<int:pk>/sell/", auction.lot_sell, name="lot_sell"),
    path("lots/<int:pk>/unsold/", auction.lot_unsold, name="lot_unsold"),
    path(
        "sales/<int:pk>/certificate.pdf",
        documents.sale_certificate_pdf,
        name="sale_certificate_pdf",
    ),
    # s.16: the owner refuses or omits to pay.
    path("entries/<int:pk>/s16/", s16.s16_new, name="s16_new"),
    path("s16/<int:pk>/", s16.s16_case, name="s16_case"),
    path("s16/<int:pk>/settle/", s16.s16_settle, name="s16_settle"),
    path("s16/<int:pk>/account.pdf", documents.s16_account_pdf, name="s16_account_pdf"),
    # The proviso: disposal by the District Magistrate's order.
    path("disposals/", disposal.disposals, name="disposals"),
    path("disposals/new/", disposal.disposal_new, name="disposal_new"),
    path("disposals/<int:pk>/decide/", disposal.disposal_decide, name="disposal_decide"),
    path("disposals/<int:pk>/order.pdf", documents.disposal_order_pdf, name="disposal_order_pdf"),
    # Handover to a gaushala where the State's law forbids the sale (ADR 0070).
    path("gaushalas/", gaushala.gaushalas, name="gaushalas"),
    path("gaushalas/new/", gaushala.gaushala_new, name="gaushala_new"),
    path("gaushalas/<int:pk>/edit/", gaushala.gaushala_edit, name="gaushala_edit"),
    path("gaushalas/handover/", gaushala.handover_new, name="handover_new"),
    path(
        "disposals/<int:pk>/handover-certificate.pdf",
        gaushala.handover_certificate_pdf,
        name="handover_certificate_pdf",
    ),
    path("gaushalas/animals/", gaushala.held_animals, name="gaushala_animals"),
    path("gaushalas/animals/<int:pk>/end/", gaushala.holding_end_new, name="holding_end_new"),
    path("gaushalas/upkeep/", gaushala.claims, name="upkeep_claims"),
    path("gaushalas/upkeep/new/", gaushala.claim_new, name="upkeep_claim_new"),
    path("gaushalas/upkeep/<int:pk>/decide/", gaushala.claim_decide, name="upkeep_claim_decide"),
    path("gaushalas/upkeep/<int:pk>/pay/", gaushala.claim_pay, name="upkeep_claim_pay"),
]
