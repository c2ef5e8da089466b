# Models arrive with the issue that builds this app.
