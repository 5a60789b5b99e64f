"""The web shell: FastAPI routes, Jinja2 pages and the WebSocket, over the play service.

It parses and authorises requests, calls :mod:`kva.service`, and sends each viewer the state
the service built for that viewer. ``create_app(settings)`` builds the application.
"""
