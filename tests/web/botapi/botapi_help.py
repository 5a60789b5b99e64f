"""Helpers of the bot API tests: a registered account turned into a bot with a token, and a
small async client of the API (JSON calls and NDJSON streams)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import Any

import httpx

from tests.helpers.accounts_help import registered
from tests.helpers.waiting import first_matching
from tests.helpers.webhelp import Visitor


async def new_bot(base_url: str, prefix: str = "r") -> tuple[Visitor, str, str]:
    """A freshly registered account made a bot from the settings page, and a new token:
    the owner's visitor (logged in), the bot's nickname, the token."""
    v, name = await registered(base_url, prefix)
    r = await v.http.post("/settings/bot/enable")
    assert r.status_code == 303, r.text
    r = await v.http.post("/settings/bot/tokens", data={"label": "test"})
    assert r.status_code == 200, r.text
    found = re.search(r'data-testid="bot-new-token">(kvab_[A-Za-z0-9_-]+)<', r.text)
    assert found, r.text
    return v, name, found.group(1)


class ApiClient:
    """The bot API for one token."""

    def __init__(self, base_url: str, token: str) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=30,
                                      headers={"Authorization": f"Bearer {token}"})

    async def close(self) -> None:
        await self.http.aclose()

    async def post(self, path: str, body: Any = None) -> httpx.Response:
        return await self.http.post(path, json=body)


class Stream:
    """An NDJSON stream read in the background: every line (raw text and parsed)."""

    def __init__(self, client: ApiClient, path: str) -> None:
        self.client = client
        self.path = path
        self.raw: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.status = 0
        self.ended = False
        self._arrived = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> Stream:
        opened = asyncio.Event()

        async def read() -> None:
            try:
                async with self.client.http.stream("GET", self.path, timeout=None) as resp:
                    self.status = resp.status_code
                    opened.set()
                    async for line in resp.aiter_lines():
                        if line.strip():
                            self.raw.append(line)
                            self.messages.append(json.loads(line))
                            self._arrived.set()
            except httpx.HTTPError:
                pass
            finally:
                self.ended = True
                opened.set()
                self._arrived.set()

        self._task = asyncio.create_task(read())
        await asyncio.wait_for(opened.wait(), 10)
        return self

    @property
    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == "state"]

    async def wait_for(self, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
        """The first line of the stream (so far or within ``timeout``) that matches."""
        return await first_matching(
            self.messages, predicate, self._arrived, lambda: self.ended, timeout,
            lambda: str(self.messages[-2:]),
        )

    async def wait_ended(self, timeout: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.ended:
            assert loop.time() < deadline, "stream still open"
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
