from django.urls import path

from . import views

app_name = "webhooks"

urlpatterns = [
    path("", views.subscriptions, name="list"),
    path("<int:pk>/", views.subscription, name="subscription"),
    path("<int:pk>/stop/", views.stop, name="stop"),
    path("<int:pk>/deliveries/<uuid:delivery>/send/", views.send_again, name="send_again"),
]
