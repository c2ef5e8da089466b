from django.urls import path

from .views import challans, money, office, prepared, returns, treasury

app_name = "office"

urlpatterns = [
    path("", office.dashboard, name="office"),
    path("todos/", office.todos, name="todos"),
    path("approvals/", office.approvals, name="approvals"),
    path("shortfalls/<int:pk>/write-off/", office.shortfall_write_off, name="shortfall_write_off"),
    path("court-orders/<int:pk>/review/", office.court_order_review, name="court_order_review"),
    path(
        "deposits/<int:pk>/confirm-application/",
        office.deposit_confirm_application,
        name="deposit_confirm_application",
    ),
    path("remittances/", money.remittances, name="remittances"),
    path("remittances/new/", money.remittance_new, name="remittance_new"),
    path("remittances/<int:pk>/confirm/", money.remittance_confirm, name="remittance_confirm"),
    path("treasury/scroll/", treasury.treasury_scroll, name="treasury_scroll"),
    path("surplus/", money.surplus, name="surplus"),
    path("surplus/<int:pk>/receive/", money.surplus_receive, name="surplus_receive"),
    path("surplus/<int:pk>/claim/", money.claim_new, name="claim_new"),
    path("surplus/<int:pk>/challan/", challans.surplus_challan, name="surplus_challan"),
    path("surplus/<int:pk>/challan/new/", challans.surplus_challan_new, name="surplus_challan_new"),
    path("surplus/<int:pk>/memo.pdf", money.transfer_memo_pdf, name="transfer_memo_pdf"),
    path("claims/<int:pk>/decide/", money.claim_decide, name="claim_decide"),
    path("feeding/<int:pk>/", money.feeding_statement, name="feeding_statement"),
    path("trail/<int:pk>/", money.money_trail, name="money_trail"),
    path("returns/", returns.returns, name="returns"),
    path(
        "returns/monthly/<int:pk>/<int:year>/<int:month>.<str:fmt>",
        returns.monthly_return,
        name="monthly_return",
    ),
    path(
        "returns/district/<int:pk>/<int:year>/<int:month>.<str:fmt>",
        returns.district_return,
        name="district_return",
    ),
    path("returns/cashbook/<int:pk>/<str:day>.<str:fmt>", returns.cash_book, name="cash_book"),
    path("exports/register.csv", returns.export_register, name="export_register"),
    path("prepare/", prepared.prepare, name="prepare"),
    path("prepared/<uuid:pk>/", prepared.prepared, name="prepared"),
    path("prepared/<uuid:pk>/file/", prepared.prepared_file, name="prepared_file"),
    path("exports/ledger.csv", returns.export_ledger, name="export_ledger"),
]
