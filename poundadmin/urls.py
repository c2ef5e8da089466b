from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from accounts import second_factor as account_second_factor
from accounts import signed_heads
from accounts import views as account_views
from auctions.views import unclaimed as auction_views
from impounding.views import field as field_views
from impounding.views import lost as lost_views
from kernel import health
from messaging import views as messaging_views
from office.views import home as home_views
from payments import views as payment_views

urlpatterns = [
    path("healthz", health.liveness, name="healthz"),
    path("healthz/ready", health.readiness, name="readyz"),
    path("healthz/queue", health.queue, name="queuez"),
    path("", home_views.home, name="home"),
    path("login/", account_views.login_view, name="login"),
    path("logout/", account_second_factor.logout, name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(template_name="accounts/password_change.html"),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/password_change_done.html"
        ),
        name="password_change_done",
    ),
    path("language/", account_views.set_language, name="set_language"),
    path("verify/", signed_heads.signed_heads, name="signed_heads"),
    path("verify/checkpoint.json", signed_heads.signed_file, name="signed_checkpoint"),
    re_path(r"^verify/(?P<token>[A-Za-z0-9_-]{16,64})/$", account_views.verify, name="verify"),
    # The owner's pay page, by the entry's short token (ADR 0085): the link in the SMS.
    re_path(r"^p/(?P<token>[A-Za-z0-9_-]{8,16})$", payment_views.pay_page, name="pay"),
    path("accounts/", include("accounts.urls")),
    path("pound/", include("impounding.urls")),
    path("auctions/", include("auctions.urls")),
    path("office/", include("office.urls")),
    path("payments/", include("payments.urls")),
    path("rules/", include("rulepacks.urls")),
    path("notices/", auction_views.board, name="board"),
    # Lost-cattle reports from the public (ADR 0079): no sign-in, a code to the phone.
    path("lost/", lost_views.report, name="lost_report"),
    path("lost/code/", lost_views.code, name="lost_code"),
    path("lost/check/", lost_views.check, name="lost_check"),
    path("lost/done/", lost_views.done, name="lost_done"),
    # The owner stops the messages to a phone, or starts them again (ADR 0084): a code to it.
    path("stop/", messaging_views.opt_out, name="optout"),
    path("stop/code/", messaging_views.opt_out_code, name="optout_code"),
    path("stop/done/", messaging_views.opt_out_done, name="optout_done"),
    path("api/", include("api.urls")),
    path("webhooks/", include("webhooks.urls")),
    path("messages/", include("messaging.urls")),
    # The pound-keeper's field app (ADR 0073): public shells; its records go through the API.
    path("field/", field_views.app, name="field_app"),
    path("field/manifest.webmanifest", field_views.manifest, name="field_manifest"),
    path("field/sw.js", field_views.worker, name="field_worker"),
    path("field/jsi18n/<str:lang>/", field_views.catalogue, name="field_catalogue"),
]
# The admin, for superuser repair, signs in through the app's own login; ADMIN_ENABLED=false
# removes it altogether.
if settings.ADMIN_ENABLED:
    admin.site.login = account_views.admin_login
    urlpatterns.append(path("admin/", admin.site.urls))

# Uploads are never served from MEDIA_URL, not even in development: each file has a view that
# checks who may see it (kernel/files.py).
