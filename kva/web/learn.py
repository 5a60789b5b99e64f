"""Learning pages: the interactive lesson (``/learn``) and its JSON, checked by the engine,
with progress kept in the browser (guests) or the ``learn_progress`` table (registered); the
strategy guide (``/strategy``) and Kozel's rules (``/rules/kozel``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, Response

from kva.learn import lessons
from kva.learn.counting import aid_allowed, unseen_by_number
from kva.learn.lessons import SLUGS, STEPS, instruction_args
from kva.learn.strategy import BY_SLUG, EXAMPLES
from kva.rules import view_to_json
from kva.service import NotFound
from kva.service.accounts import learn_progress
from kva.service.accounts.registration import is_registered
from kva.service.analysis import AlreadyPending, AnalysisService, QueueFull
from kva.web.render import render, translator
from kva.web.security import client_key
from kva.web.services import services

router = APIRouter()


def _step(number: int) -> lessons.Step:
    try:
        return lessons.step_at(number)
    except IndexError:
        raise HTTPException(404, "no such step") from None


def _toc(request: Request) -> list[dict[str, Any]]:
    _ = translator(request)
    return [{"n": i + 1, "slug": s.slug, "title": _(s.title)} for i, s in enumerate(STEPS)]


@router.get("/learn")
async def learn_page(request: Request) -> Response:
    """The lesson: a table of contents and one step at a time (``#step-N``)."""
    return render(request, "learn.html", {"toc": _toc(request), "total": len(STEPS)})


@router.get("/strategy")
async def strategy_page(request: Request) -> Response:
    """The strategy and tile-counting guide, its diagrams drawn from real positions."""
    examples = [e.to_json() for e in EXAMPLES]
    return render(request, "strategy.html", {
        "examples": examples, "unseen": unseen_by_number(BY_SLUG["count"].position.view())})


@router.get("/rules/kozel")
async def kozel_rules_page(request: Request) -> Response:
    """Kozel's rules in short sentences, as docs/kozel.md states them and kva/kozel plays."""
    return render(request, "kozel_rules.html")


@router.get("/learn/aid/{match_id}")
async def counting_aid(request: Request, match_id: str) -> JSONResponse:
    """Whether the counting aid may be shown in this match: casual and bot matches only."""
    if len(match_id) > 24:
        raise HTTPException(404, "no such match")
    rated = await learn_progress.match_rated(services(request).sessions, match_id)
    if rated is None:
        raise HTTPException(404, "no such match")
    return JSONResponse({"allowed": aid_allowed(rated)})


@router.get("/learn/step/{number}")
async def step_json(request: Request, number: int) -> JSONResponse:
    """Step ``number``: its title, instruction and the position as the learner sees it."""
    _ = translator(request)
    step = _step(number)
    return JSONResponse({
        "n": number, "total": len(STEPS), "slug": step.slug, "title": _(step.title),
        "instruction": _(step.instruction) % instruction_args(step),
        "view": step.position.view_json(),
    })


@router.post("/learn/step/{number}/check")
async def step_check(request: Request, number: int) -> JSONResponse:
    """The engine's verdict on the learner's action (the game's JSON action form)."""
    _ = translator(request)
    step = _step(number)
    try:
        body = await request.json()
    except ValueError:
        body = None
    action = body.get("action") if isinstance(body, dict) else None
    verdict = lessons.check(step, action)
    message = _(verdict.message) % verdict.args if verdict.message else ""
    out: dict[str, Any] = {"ok": verdict.ok, "legal": verdict.legal, "message": message}
    if verdict.after is not None:
        out["view"] = view_to_json(step.position.view(verdict.after))
        out["points"] = verdict.args.get("points", 0)
    return JSONResponse(out)


@router.get("/learn/progress")
async def progress_get(request: Request) -> JSONResponse:
    """A registered player's steps done (a guest's live in the browser: ``stored`` false)."""
    user = request.state.user
    if not is_registered(user):
        return JSONResponse({"stored": False, "done": []})
    done = await learn_progress.progress_of(services(request).sessions, user.id)
    return JSONResponse({"stored": True, "done": done})


@router.post("/learn/progress")
async def progress_post(request: Request) -> JSONResponse:
    """Add steps done to a registered player's progress (the union with what is stored)."""
    user = request.state.user
    if not is_registered(user):
        return JSONResponse({"stored": False, "done": []})
    try:
        body = await request.json()
    except ValueError:
        body = None
    sent = body.get("done") if isinstance(body, dict) else None
    new = {s for s in sent if isinstance(s, str) and s in SLUGS} if isinstance(sent, list) \
        else set()
    done = await learn_progress.add_progress(services(request).sessions, user.id, new)
    return JSONResponse({"stored": True, "done": done})


def _analysis(request: Request) -> AnalysisService:
    service: AnalysisService | None = getattr(request.app.state, "analysis", None)
    if service is None:
        service = AnalysisService(services(request).sessions,
                                  max_queue=services(request).settings.analysis_queue)
        request.app.state.analysis = service
    return service


async def _finished(request: Request, match_id: str) -> dict[str, Any]:
    """The finished record of a match the visitor may watch (404/403/409 otherwise)."""
    if len(match_id) > 24:
        raise HTTPException(404, "no such match")
    play = services(request).play
    user = request.state.user
    try:
        info = await play.info(match_id, user.id if user is not None else None)
    except NotFound:
        raise HTTPException(404, "no such match") from None
    if not info.may_watch:
        raise HTTPException(403, "private match")
    doc = await play.finished_record(match_id)
    if doc is None:
        raise HTTPException(409, "the match is not over")
    return doc


@router.get("/m/{match_id}/analysis")
async def analysis_get(request: Request, match_id: str) -> JSONResponse:
    """The stored analysis, or the progress of the job making it (``none``: not asked)."""
    await _finished(request, match_id)
    service = _analysis(request)
    stored = await service.stored(match_id)
    if stored is not None:
        return JSONResponse({"status": "done", "analysis": stored})
    return JSONResponse(service.status(match_id))


#: Seconds a refused analysis request is told to wait: one job of its requester, or a free
#: place in a full queue (a match's analysis takes tens of seconds).
PENDING_RETRY_AFTER = 30
FULL_RETRY_AFTER = 60


def _refused(status: int, message: str, retry_after: int) -> JSONResponse:
    return JSONResponse({"status": "refused", "message": message}, status_code=status,
                        headers={"Retry-After": str(retry_after)})


@router.post("/m/{match_id}/analysis")
async def analysis_post(request: Request, match_id: str) -> JSONResponse:
    """Ask for the analysis of a finished match: queued once, served from the database after.

    Anyone who may watch the match may ask. Requests are limited per client address; each
    registered player, and each client address whoever asks from it, has one match of their
    own in the queue at a time (so free accounts on one address share one place); joining a
    match already queued is always allowed; a full queue answers 503."""
    _ = translator(request)
    client = client_key(request)
    refusal = await services(request).rate_limiter.check("analysis_ip", client)
    if refusal is not None:
        minutes = max(1, -(-refusal.retry_after // 60))
        return _refused(429, _("You asked for too many analyses. Try again in %(minutes)s "
                               "min.") % {"minutes": minutes}, refusal.retry_after)
    doc = await _finished(request, match_id)
    service = _analysis(request)
    stored = await service.stored(match_id)
    if stored is not None:
        return JSONResponse({"status": "done", "analysis": stored})
    user = request.state.user
    requesters: tuple[str, ...] = (f"address:{client}",)
    if is_registered(user):
        requesters += (f"user:{user.id}",)
    try:
        return JSONResponse(service.request(match_id, doc, requesters), status_code=202)
    except AlreadyPending:
        return _refused(429, _("One of your analyses is still in the queue. Ask for this one "
                               "when it is done."), PENDING_RETRY_AFTER)
    except QueueFull:
        return _refused(503, _("The analysis queue is full. Try again in a few minutes."),
                        FULL_RETRY_AFTER)


def install(app: FastAPI) -> None:
    """Register the learning pages."""
    app.include_router(router)
