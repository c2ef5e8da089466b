from django.urls import path

from . import views

app_name = "rulepacks"

urlpatterns = [
    path("", views.index, name="index"),
    path("district/<int:pk>/", views.district, name="district"),
    path("district/<int:pk>/choose/", views.choose, name="choose"),
    path("diff/", views.diff, name="diff"),
]
