"""gunicorn settings for the service (``topichub serve`` passes ``--config python:web.gunicorn_conf``)."""

import gunicorn.http.wsgi

# No banner: gunicorn's Server header would name the software; ours names only the service.
gunicorn.http.wsgi.SERVER = "topichub"
gunicorn.http.wsgi.SERVER_SOFTWARE = "topichub"

worker_class = "sync"
timeout = 30
graceful_timeout = 10
keepalive = 5
accesslog = "-"
errorlog = "-"
limit_request_line = 8190
