"""Response headers every answer carries, errors included."""

from __future__ import annotations

from flask import Flask, Response

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def register(app: Flask) -> None:
    @app.after_request
    def _secure(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        response.headers.pop("Server", None)
        return response
