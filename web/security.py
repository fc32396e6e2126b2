"""Response headers every answer carries, errors included."""

from __future__ import annotations

from flask import Flask, Response

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


_LOWER = tuple((name.lower(), name, value) for name, value in HEADERS.items())


def register(app: Flask) -> None:
    @app.after_request
    def _secure(response: Response) -> Response:
        # One pass over the headers already set: werkzeug's setdefault and pop scan them once per
        # name, and raise and catch an exception for each name missing (the usual case).
        headers = response.headers
        present = {name.lower() for name in headers.keys()}
        for lower, name, value in _LOWER:
            if lower not in present:
                headers.add(name, value)
        if "server" in present:
            headers.remove("Server")
        return response
