from django.urls import path

from . import device_views, second_factor, service_tokens, training_views, views

app_name = "accounts"

urlpatterns = [
    path("me/", views.profile, name="profile"),
    path("me/relatives/", views.relatives, name="relatives"),
    path("relatives/<int:pk>/", views.relative_edit, name="relative_edit"),
    path("staff/<int:pk>/relatives/", views.staff_relatives, name="staff_relatives"),
    path("tokens/", views.api_tokens, name="api_tokens"),
    path("tokens/<int:pk>/revoke/", views.api_token_revoke, name="api_token_revoke"),
    path("tokens/pair/", device_views.pair, name="pair_device"),
    path("device-tokens/", device_views.device_tokens_list, name="device_tokens"),
    path(
        "device-tokens/<int:pk>/revoke/",
        device_views.device_token_revoke,
        name="device_token_revoke",
    ),
    path("service-tokens/", service_tokens.service_tokens, name="service_tokens"),
    path(
        "service-tokens/<int:pk>/revoke/",
        service_tokens.service_token_revoke,
        name="service_token_revoke",
    ),
    path("session/", views.session_ping, name="session_ping"),
    path("second-factor/", second_factor.verify, name="second_factor"),
    path("second-factor/setup/", second_factor.setup, name="second_factor_setup"),
    path("second-factor/recovery-codes/", second_factor.recovery_codes, name="second_factor_codes"),
    path(
        "second-factor/recovery-codes/new/",
        second_factor.new_recovery_codes,
        name="second_factor_new_codes",
    ),
    path("second-factor/passkey/", second_factor.passkey_sign_in, name="second_factor_passkey"),
    path("second-factor/passkeys/", second_factor.passkeys, name="passkeys"),
    path(
        "second-factor/passkeys/<int:pk>/remove/",
        second_factor.passkey_remove,
        name="passkey_remove",
    ),
    path("staff/<int:pk>/second-factor/reset/", second_factor.reset, name="second_factor_reset"),
    path("jurisdiction/", views.jurisdiction, name="jurisdiction"),
    path("training/<int:pk>/", training_views.training, name="training"),
    path("staff/", views.staff, name="staff"),
    path("appointments/<int:pk>/card.pdf", views.appointment_card, name="appointment_card"),
    path("documents/<str:token>/reissue/", views.reissue, name="reissue"),
]
