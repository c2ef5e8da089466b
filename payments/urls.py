from django.urls import path

from . import views

app_name = "payments"

urlpatterns = [
    path("entries/<int:pk>/pay/", views.start, name="start"),
    path("return/<uuid:token>/", views.browser_return, name="return"),
    path("callback/<slug:name>/", views.callback, name="callback"),
    path("reconcile/", views.reconcile, name="reconcile"),
    path("reconcile/lines/<int:pk>/", views.review_line, name="review_line"),
    path("refunds/", views.refund_list, name="refunds"),
    path("refunds/<int:pk>/", views.refund_detail, name="refund"),
    path("<int:pk>/refund/", views.refund_prepare, name="refund_prepare"),
]
