from django.urls import path

from . import views

app_name = "messaging"

urlpatterns = [
    path("templates/", views.templates, name="templates"),
    path("entries/<int:pk>/phone/", views.contact, name="contact"),
]
