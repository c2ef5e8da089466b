from datetime import timedelta

from django.core.management.base import BaseCommand

from office.tasks import requeue_stale


class Command(BaseCommand):
    help = (
        "Enqueue again the prepared files whose worker died mid-task (started over --minutes "
        "ago, never finished), and the mail of the to-dos made as long ago and never mailed. "
        "The worker's unit runs it before each start."
    )

    def add_arguments(self, parser):
        parser.add_argument("--minutes", type=int, default=30)

    def handle(self, *args, minutes=30, **options):
        count = requeue_stale(older_than=timedelta(minutes=minutes))
        self.stdout.write(f"requeue_stale_tasks: {count} enqueued again")
