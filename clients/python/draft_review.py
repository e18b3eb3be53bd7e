"""Python client of telegram-draft-for-review's intake API.

Standard library only, Python 3.9+. The swarm submits drafts, reads their
records, waits for outcomes, follows the events feed from a persisted cursor,
and checks the signature of push callbacks::

    import draft_review
    c = draft_review.Client()            # DRAFT_API_HOST/PORT, DRAFT_API_TOKEN or HARNESS_DIR/api_token
    answer = c.submit({...}, idempotency_key="intent-42-v1")
    record = c.wait(answer["draft_id"], timeout=3600)
    for event in c.events("draft-review.cursor"):
        handle(event)                    # the cursor moves only after a batch was handled

Errors of the API are raised as ApiError (``.status``, ``.field``, ``str()`` is
the API's message).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Mapping, Optional

__all__ = ["ApiError", "Client", "FINAL_STATUSES", "describe", "verify_callback"]

#: Statuses a draft never leaves: ``wait`` returns once a draft is in one.
FINAL_STATUSES = frozenset({"sent", "revise", "expired", "failed", "outcome_unknown", "partly_sent"})

#: Statuses a request may be retried on: the daemon is busy or its store cannot write yet.
_RETRYABLE = frozenset({0, 502, 503, 504})


class ApiError(Exception):
    """An answer of the API that is not a success, or no answer at all.

    ``status`` is the HTTP status (0 when the daemon could not be reached),
    ``field`` the payload field the API named (or None), ``retry_after`` the
    seconds a 503 asked to wait (or None). ``str(err)`` is the API's message.
    """

    def __init__(self, status: int, message: str, field: Optional[str] = None, retry_after: Optional[float] = None) -> None:
        super().__init__(message)
        self.status = status
        self.field = field
        self.retry_after = retry_after
        self.message = message

    def __str__(self) -> str:
        return self.message


class Client:
    """One daemon's intake API.

    ``url`` defaults to ``http://DRAFT_API_HOST:DRAFT_API_PORT`` (127.0.0.1:8787),
    ``token`` to DRAFT_API_TOKEN, else the content of ``HARNESS_DIR/api_token``
    (HARNESS_DIR default ``.harness``, relative to the working directory).
    ``timeout_seconds`` bounds one request (a submit waits for the review post).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout_seconds: float = 70.0) -> None:
        self.url = (url or _default_url()).rstrip("/")
        self.token = token or _default_token()
        self.timeout_seconds = timeout_seconds

    # -- the API -----------------------------------------------------------------------------

    def submit(
        self,
        payload: Mapping[str, Any],
        idempotency_key: Optional[str] = None,
        send_as: Optional[str] = None,
        reply_to_message_id: Optional[int] = None,
    ) -> Dict[str, Any]:
        """Submits one draft; returns the intake answer (``draft_id``, ``review_message_id``, ``status``).

        With ``idempotency_key`` a resubmission returns the same draft and posts
        nothing new, so a submit whose answer was lost can simply be repeated.
        ``send_as`` is ``"bot"`` (the default), ``"owner"`` (from the owner's own
        account, through his Telegram Business connection) or ``"auto"`` (the
        owner where Telegram allows it, else the bot); ``reply_to_message_id``
        names the message in the destination chat that the draft answers.
        """
        body = dict(payload)
        if idempotency_key is not None:
            body["idempotency_key"] = idempotency_key
        if send_as is not None:
            body["send_as"] = send_as
        if reply_to_message_id is not None:
            body["reply_to_message_id"] = reply_to_message_id
        return self._call("POST", "/drafts", body)

    def get(self, draft_id: str) -> Dict[str, Any]:
        """The draft's current record."""
        return self._call("GET", "/drafts/" + urllib.parse.quote(draft_id, safe=""))

    def list(self, status: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every draft, or those in ``status``."""
        query = "" if status is None else "?status=" + urllib.parse.quote(status)
        return list(self._call("GET", "/drafts" + query)["drafts"])

    def wait(self, draft_id: str, timeout: float) -> Dict[str, Any]:
        """The draft's record once its status is final; TimeoutError after ``timeout`` seconds.

        Polls gently (0.2 s, growing to 2 s); a daemon that is restarting is waited for.
        """
        deadline = time.monotonic() + timeout
        pause = 0.2
        while True:
            try:
                record = self.get(draft_id)
                if record.get("status") in FINAL_STATUSES:
                    return record
            except ApiError as err:
                if err.status not in _RETRYABLE:
                    raise
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"draft {draft_id} is not final after {timeout} s")
            time.sleep(min(pause, left))
            pause = min(2.0, pause * 1.5)

    def events(self, cursor_file: str, follow: bool = True, poll_seconds: float = 1.0) -> Iterator[Dict[str, Any]]:
        """The events after the cursor saved in ``cursor_file`` (0 when it does not exist), in ``seq`` order.

        The cursor (one number) is written atomically once the caller has handled
        a batch, that is, when it asks for the event after a batch's last one; so
        a crash re-delivers events rather than skipping them. Leaving the loop
        early (``break``) saves the events handled before the one it left on,
        which comes again next time. ``follow=False`` stops at the end of the
        feed; otherwise it polls every ``poll_seconds`` and waits out a daemon
        that restarts.
        """
        cursor = _read_cursor(cursor_file)
        handled = cursor
        pause = poll_seconds
        try:
            while True:
                try:
                    page = self._call("GET", f"/events?after={cursor}&limit=1000")
                except ApiError as err:
                    if not follow or err.status not in _RETRYABLE:
                        raise
                    time.sleep(pause)
                    pause = min(5.0, pause * 2)
                    continue
                pause = poll_seconds
                batch: List[Dict[str, Any]] = list(page["events"])
                for event in batch:
                    yield event
                    handled = int(event["seq"])
                cursor = int(page["last_seq"])
                if not batch and cursor < handled:
                    # The feed ends before the saved cursor (its audit log was replaced by an older copy): resume from
                    # the feed's real end, saved, so the events that come after it are not skipped.
                    handled = cursor
                    _write_cursor(cursor_file, cursor)
                if batch:
                    _write_cursor(cursor_file, cursor)
                    continue
                if not follow:
                    return
                time.sleep(poll_seconds)
        finally:
            if handled > _read_cursor(cursor_file):
                _write_cursor(cursor_file, handled)

    def healthz(self) -> Dict[str, Any]:
        """``GET /healthz``: ``{"ok": true}``; raises ApiError (503) with the reasons when the daemon cannot work."""
        return self._call("GET", "/healthz")

    # -- plumbing ----------------------------------------------------------------------------

    def _call(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as res:
                return _json(res.read())
        except urllib.error.HTTPError as err:
            raise _api_error(err) from None
        except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError) as err:
            reason = getattr(err, "reason", err)
            raise ApiError(0, f"the draft-review daemon at {self.url} did not answer ({reason}); is it running (npm start)?") from None


def verify_callback(body: bytes, headers: Mapping[str, str], secret: str, max_age: int = 300) -> bool:
    """True when a push callback is genuine and fresh.

    Checks ``X-Draft-Review-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">``
    with CALLBACK_SECRET (in constant time) and that ``X-Draft-Review-Timestamp``
    is within ``max_age`` seconds of now, so a replayed request is refused.
    Pass the raw body bytes, before any JSON parsing. Header names are case-insensitive.
    """
    lower = {k.lower(): v for k, v in headers.items()}
    timestamp = lower.get("x-draft-review-timestamp", "")
    signature = lower.get("x-draft-review-signature", "")
    if not timestamp.isdigit() or len(timestamp) > 12 or abs(time.time() - int(timestamp)) > max_age:
        return False
    mac = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + bytes(body), hashlib.sha256)
    return hmac.compare_digest("sha256=" + mac.hexdigest(), signature)


def describe(record: Mapping[str, Any]) -> str:
    """A draft's record for a person: its status, where it goes, who will read it, and where it went.

    A draft to Linear, email or Slack (contract v5) shows its ``destination``
    object, the lines its review post showed of ``channel_audience`` (who will
    read it, as whom; why a 👍 asks one more tap; what stops the send) and,
    once sent, ``sent_ref`` (Linear ``comment_id``/``url``, email
    ``message_id``, Slack ``channel``/``ts``/``permalink``). A Telegram draft
    shows its chat (and topic). A draft with several destinations shows its
    ``deliveries``, one line each (index, status, ``sent_ref``, reason): with
    ``choose: "any"`` one per destination it went to, and it may end
    ``partly_sent``. The text comes last, whole.
    """
    lines = [f"{record.get('draft_id')}: {record.get('status')} ({record.get('drafted_by_role')})"]
    destination = record.get("destination")
    if destination:
        lines.append("destination: " + _compact(destination))
    else:
        thread = record.get("destination_thread_id")
        lines.append(f"destination: {record.get('destination_chat_id')}" + (f", topic {thread}" if thread is not None else ""))
    audience = record.get("channel_audience")
    if audience:
        count = audience.get("reader_count")
        readers = "readers unknown" if count is None else f"{count} reader{'' if count == 1 else 's'}"
        lines.append(f"channel_audience: {audience.get('channel')}, {readers}, read {audience.get('checked_at')}")
        lines += ["  " + str(line) for line in audience.get("lines") or []]
        lines += ["  one more tap: " + str(reason) for reason in audience.get("confirm_reasons") or []]
        if audience.get("problem"):
            lines.append("  problem: " + str(audience["problem"]))
    if record.get("sent_ref"):
        lines.append("sent_ref: " + _compact(record["sent_ref"]))
    if record.get("deliveries"):
        lines.append("deliveries:")
        for d in record["deliveries"]:
            ref = "" if d.get("sent_ref") is None else " " + _compact(d["sent_ref"])
            why = "" if d.get("reason") is None else f" ({d['reason']})"
            lines.append(f"  {d.get('index')}: {d.get('status')}{ref}{why}")
    if record.get("reason"):
        lines.append("reason: " + str(record["reason"]))
    return "\n".join(lines + ["draft_text:", str(record.get("draft_text", ""))])


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _default_url() -> str:
    host = os.environ.get("DRAFT_API_HOST", "").strip() or "127.0.0.1"
    port = os.environ.get("DRAFT_API_PORT", "").strip() or "8787"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _default_token() -> str:
    token = os.environ.get("DRAFT_API_TOKEN", "").strip()
    if token:
        return token
    path = os.path.join(os.environ.get("HARNESS_DIR", "").strip() or ".harness", "api_token")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError as err:
        raise ApiError(0, f"no API token: set DRAFT_API_TOKEN, or run where the daemon keeps {path} ({err.strerror})", "token") from None


def _json(raw: bytes) -> Dict[str, Any]:
    value = json.loads(raw.decode("utf-8"))
    if not isinstance(value, dict):
        raise ApiError(0, f"the daemon answered something that is not a JSON object: {raw[:200]!r}")
    return value


def _api_error(err: urllib.error.HTTPError) -> ApiError:
    raw = err.read()
    message, field = raw.decode("utf-8", "replace").strip() or err.reason, None
    try:
        parsed = json.loads(raw.decode("utf-8"))
        if isinstance(parsed, dict):
            if isinstance(parsed.get("error"), str):
                message = parsed["error"]
            elif isinstance(parsed.get("reasons"), list):
                message = "; ".join(str(r) for r in parsed["reasons"])
            field = parsed.get("field") if isinstance(parsed.get("field"), str) else None
    except ValueError:
        pass
    retry = err.headers.get("Retry-After") if err.headers else None
    return ApiError(err.code, str(message), field, float(retry) if retry and retry.isdigit() else None)


def _read_cursor(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except FileNotFoundError:
        return 0
    if not text.isdigit():
        raise ValueError(f"{path} should hold one whole number, the last event seq handled (got {text[:40]!r})")
    return int(text)


def _write_cursor(path: str, seq: int) -> None:
    """Writes the cursor atomically and durably: a temp file, fsync, rename, fsync of the directory."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".cursor-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(f"{seq}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if hasattr(os, "O_DIRECTORY"):
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
