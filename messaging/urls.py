from django.urls import path

from . import views

app_name = "messaging"

urlpatterns = [
    path("templates/", views.templates, name="templates"),
    path("entries/<int:pk>/phone/", views.contact, name="contact"),
    # The gateways' delivery reports (ADR 0084): public, each with the shared token.
    path("dlr/<slug:provider>/", views.delivery_report, name="dlr"),
]
