"""The error pages every part of the web tier answers with, in the visitor's language."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import PlainTextResponse, Response

from kva.web.render import render, translator


def error_page(request: Request, status: int, detail: Any) -> Response:
    """A clear error page in the visitor's language (``detail`` if it is our own message)."""
    _ = translator(request)
    titles = {
        400: _("That request was not understood."),
        403: _("You may not do that."),
        404: _("There is nothing here."),
        405: _("That request was not understood."),
        429: _("Too many attempts. Wait a little and try again."),
    }
    message = detail if isinstance(detail, str) and getattr(request.state, "own_error", False) \
        else titles.get(status, _("Something went wrong."))
    if not hasattr(request.state, "locale"):
        return PlainTextResponse(str(status), status_code=status)
    return render(request, "error.html", {"status": status, "message": message,
                                          "code": getattr(request.state, "error_code", None)},
                  status)


def busy_page(request: Request) -> Response:
    """503 at once when password checks are saturated (never an unbounded queue)."""
    _ = translator(request)
    request.state.own_error = True
    response = error_page(request, 503, _("The server is busy. Try again in a moment."))
    response.headers["Retry-After"] = "2"
    return response
