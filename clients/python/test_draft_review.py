"""Tests of draft_review.py (stdlib unittest).

The classes marked "daemon" need the real daemon: `npm test` runs them
(test/clients/python-client.test.ts) with E2E_CONTROL_URL pointing at a control
server that starts and restarts the daemon and plays the reviewer in the
Telegram test double. The others run anywhere: `python3 -m unittest test_draft_review`.
"""

from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import os
import statistics
import tempfile
import threading
import time
import unittest
import urllib.request
from datetime import datetime
from typing import Any, Dict, List, Optional
from unittest import mock

import draft_review
from draft_review import FINAL_STATUSES, ApiError, Client, describe, verify_callback

CONTROL = os.environ.get("E2E_CONTROL_URL")
SECRET = os.environ.get("E2E_CALLBACK_SECRET", "a-callback-secret-for-tests")


def sign(body: bytes, ts: int, secret: str = SECRET) -> Dict[str, str]:
    mac = hmac.new(secret.encode(), f"{ts}.".encode() + body, hashlib.sha256).hexdigest()
    return {"X-Draft-Review-Timestamp": str(ts), "X-Draft-Review-Signature": "sha256=" + mac}


class VerifyCallbackTest(unittest.TestCase):
    body = b'{"seq":7,"draft_id":"d_1","from":"pending","to":"sent"}'

    def test_accepts_a_fresh_genuine_callback_with_any_header_case(self) -> None:
        headers = sign(self.body, int(time.time()))
        self.assertTrue(verify_callback(self.body, headers, SECRET))
        self.assertTrue(verify_callback(self.body, {k.lower(): v for k, v in headers.items()}, SECRET))

    def test_refuses_another_secret_a_changed_body_an_old_timestamp_and_missing_headers(self) -> None:
        now = int(time.time())
        self.assertFalse(verify_callback(self.body, sign(self.body, now), "another-secret-0000"))
        self.assertFalse(verify_callback(self.body + b" ", sign(self.body, now), SECRET))
        self.assertFalse(verify_callback(self.body, sign(self.body, now - 301), SECRET))
        self.assertTrue(verify_callback(self.body, sign(self.body, now - 200), SECRET))
        self.assertFalse(verify_callback(self.body, sign(self.body, now - 200), SECRET, max_age=100))
        self.assertFalse(verify_callback(self.body, {}, SECRET))
        tampered = sign(self.body, now)
        tampered["X-Draft-Review-Timestamp"] = str(now + 1)  # the timestamp is signed too
        self.assertFalse(verify_callback(self.body, tampered, SECRET))


class DescribeTest(unittest.TestCase):
    """Issue 33: a draft to another channel shows its destination, its audience's lines and its sent_ref."""

    email = {
        "draft_id": "d_1",
        "status": "sent",
        "drafted_by_role": "Scribe",
        "draft_text": "Hi Anna,\nThursday 10:00 works.",
        "destination_chat_id": "email",
        "destination_thread_id": None,
        "destination": {"channel": "email", "to": ["anna@example.org"], "cc": [], "bcc": [], "subject": "Thursday"},
        "channel_audience": {
            "channel": "email",
            "reader_count": 1,
            "lines": ["Email “Thursday”", "to: anna@example.org"],
            "confirm_reasons": ["anna@example.org is outside example.com"],
            "problem": None,
            "fingerprint": "21ccd156379b2495",
            "checked_at": "2030-01-02T10:00:00.000Z",
        },
        "sent_ref": {"message_id": "<d_1.1@example.com>"},
        "reason": None,
    }

    def test_a_channel_draft_shows_destination_audience_lines_and_sent_ref(self) -> None:
        self.assertEqual(
            describe(self.email),
            "\n".join(
                [
                    "d_1: sent (Scribe)",
                    'destination: {"channel":"email","to":["anna@example.org"],"cc":[],"bcc":[],"subject":"Thursday"}',
                    "channel_audience: email, 1 reader, read 2030-01-02T10:00:00.000Z",
                    "  Email “Thursday”",
                    "  to: anna@example.org",
                    "  one more tap: anna@example.org is outside example.com",
                    'sent_ref: {"message_id":"<d_1.1@example.com>"}',
                    "draft_text:",
                    "Hi Anna,\nThursday 10:00 works.",
                ]
            ),
        )

    def test_a_telegram_draft_shows_its_chat_and_an_unsent_one_no_sent_ref(self) -> None:
        record = {
            "draft_id": "d_2",
            "status": "outcome_unknown",
            "drafted_by_role": "CoS",
            "draft_text": "Hello",
            "destination_chat_id": "-1001234567890",
            "destination_thread_id": 12,
            "reason": "the answer was lost",
        }
        self.assertEqual(
            describe(record),
            "d_2: outcome_unknown (CoS)\ndestination: -1001234567890, topic 12\nreason: the answer was lost\ndraft_text:\nHello",
        )
        unsent = dict(self.email, status="pending", sent_ref=None, channel_audience=dict(self.email["channel_audience"], reader_count=None, problem="no access"))
        text = describe(unsent)
        self.assertNotIn("sent_ref", text)
        self.assertIn("channel_audience: email, readers unknown, read", text)
        self.assertIn("\n  problem: no access\n", text)

    def test_a_draft_sent_to_several_shows_each_delivery_and_partly_sent_is_final(self) -> None:
        """Issue 34: choose any, one delivery per destination it went to; partly_sent is final."""
        record = dict(
            self.email,
            status="partly_sent",
            sent_ref={"chat_id": "-100", "message_id": 5},
            deliveries=[
                {"index": 1, "status": "sent", "sent_ref": {"chat_id": "-100", "message_id": 5}, "reason": None},
                {"index": 2, "status": "failed", "sent_ref": None, "reason": "550 no such user"},
            ],
        )
        text = describe(record)
        self.assertIn('\ndeliveries:\n  1: sent {"chat_id":"-100","message_id":5}\n  2: failed (550 no such user)\n', text)
        self.assertIn("partly_sent", FINAL_STATUSES)


class ClientDefaultsTest(unittest.TestCase):
    def test_url_and_token_come_from_the_environment_or_harness_dir(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "api_token"), "w") as f:
                f.write("token-from-the-file\n")
            env = {"DRAFT_API_HOST": "10.0.0.5", "DRAFT_API_PORT": "9999", "HARNESS_DIR": d, "DRAFT_API_TOKEN": ""}
            with mock.patch.dict(os.environ, env):
                c = Client()
                self.assertEqual(c.url, "http://10.0.0.5:9999")
                self.assertEqual(c.token, "token-from-the-file")
            with mock.patch.dict(os.environ, {"DRAFT_API_HOST": "", "DRAFT_API_PORT": "", "DRAFT_API_TOKEN": "t" * 20}):
                c = Client()
                self.assertEqual((c.url, c.token), ("http://127.0.0.1:8787", "t" * 20))
            with mock.patch.dict(os.environ, {"DRAFT_API_TOKEN": "", "HARNESS_DIR": os.path.join(d, "nowhere")}):
                with self.assertRaises(ApiError) as caught:
                    Client()
                self.assertEqual(caught.exception.field, "token")
                self.assertIn("DRAFT_API_TOKEN", str(caught.exception))

    def test_an_unreachable_daemon_is_an_api_error_with_status_0(self) -> None:
        c = Client(url="http://127.0.0.1:9", token="x" * 20, timeout_seconds=2)
        with self.assertRaises(ApiError) as caught:
            c.get("d_x")
        self.assertEqual(caught.exception.status, 0)
        self.assertIn("is it running", str(caught.exception))

    def test_the_cursor_file_is_one_number_written_atomically(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cursor")
            self.assertEqual(draft_review._read_cursor(path), 0)
            draft_review._write_cursor(path, 42)
            self.assertEqual(open(path).read(), "42\n")
            self.assertEqual(os.listdir(d), ["cursor"])  # no temp file left behind
            with open(path, "w") as f:
                f.write("garbage")
            with self.assertRaises(ValueError):
                draft_review._read_cursor(path)

    def test_a_cursor_ahead_of_the_feed_follows_the_daemons_last_seq_back_and_misses_nothing(self) -> None:
        # The daemon answers a cursor past its feed's end with its real last_seq, never the client's own number.
        feed: List[Dict[str, Any]] = [{"seq": 5, "draft_id": "d_a"}]
        asked: List[str] = []

        def answer(method: str, path: str, body: Any = None) -> Dict[str, Any]:
            asked.append(path)
            after = int(path.split("after=")[1].split("&")[0])
            events = [e for e in feed if e["seq"] > after]
            return {"events": events, "last_seq": events[-1]["seq"] if events else min(after, feed[-1]["seq"])}

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cursor")
            draft_review._write_cursor(path, 500)
            c = Client(url="http://127.0.0.1:9", token="x" * 20)
            with mock.patch.object(c, "_call", side_effect=answer):
                self.assertEqual(list(c.events(path, follow=False)), [])
                self.assertEqual(draft_review._read_cursor(path), 5)
                feed.extend([{"seq": 6, "draft_id": "d_b"}, {"seq": 7, "draft_id": "d_b"}])
                self.assertEqual([e["seq"] for e in c.events(path, follow=False)], [6, 7])
            self.assertEqual(draft_review._read_cursor(path), 7)
            self.assertEqual(asked[:2], ["/events?after=500&limit=1000", "/events?after=5&limit=1000"])


def control(method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(CONTROL + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as res:
        return json.load(res)


#: A person who writes to the owner (the test's FRIEND).
FRIEND = 7770003


def payload(text: str, **extra: Any) -> Dict[str, Any]:
    p = {"draft_text": text, "destination_chat_id": "-1001234567890", "destination_thread_id": None,
         "drafted_by_role": "Scribe", "originating_intent_id": "intent-q2"}
    p.update(extra)
    return p


def eventually(fn, timeout: float = 20.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout} s")
        time.sleep(0.05)


class Receiver:
    """A callback receiver as the swarm would run it: checks each signature, answers 2xx once handled.

    The first request is answered 500, so the daemon's retry shows in the figures.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.acked: Dict[int, Dict[str, Any]] = {}
        self.log: List[Dict[str, Any]] = []
        self.fail_next = 1
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                arrived = time.time()
                genuine = verify_callback(raw, dict(self.headers.items()), SECRET)
                event = json.loads(raw) if genuine else {}
                with receiver.lock:
                    if not genuine:
                        status = 401
                    elif receiver.fail_next > 0:
                        receiver.fail_next -= 1
                        status = 500
                    else:
                        status = 200
                    seq = event.get("seq")
                    receiver.log.append({"seq": seq, "status": status, "arrived": arrived,
                                         "duplicate": status == 200 and seq in receiver.acked, "event": event})
                    if status == 200 and seq not in receiver.acked:
                        receiver.acked[seq] = {"event": event, "arrived": arrived}
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/draft-events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def figures(self, feed: List[Dict[str, Any]]) -> Dict[str, Any]:
        with self.lock:
            delays = sorted((a["arrived"] - parse_iso(a["event"]["at"])) * 1000 for a in self.acked.values())
            retried = [r for r in self.log if r["status"] == 200 and any(x["seq"] == r["seq"] and x["status"] != 200 for x in self.log)]
            return {
                "events": len(feed),
                "requests": len(self.log),
                "failed_answers": sum(1 for r in self.log if r["status"] != 200),
                "retries": len(retried),
                "duplicates": sum(1 for r in self.log if r["duplicate"]),
                "missed": len({e["seq"] for e in feed} - set(self.acked)),
                "out_of_order": sum(1 for a, b in zip(self.log, self.log[1:]) if a["status"] == 200 and b["seq"] < a["seq"]),
                "delay_ms_p50": round(statistics.median(delays), 1) if delays else None,
                "delay_ms_p99": round(delays[min(len(delays) - 1, int(len(delays) * 0.99))], 1) if delays else None,
                "delay_ms_max": round(delays[-1], 1) if delays else None,
            }


def parse_iso(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@unittest.skipUnless(CONTROL, "needs the daemon: run through npm test (test/clients/python-client.test.ts)")
class DaemonTest(unittest.TestCase):
    """Against the real daemon. One daemon for the class; the end-to-end test restarts it."""

    receiver: Receiver

    @classmethod
    def setUpClass(cls) -> None:
        cls.receiver = Receiver()
        control("POST", "/daemon/start", {"env": {"CALLBACK_URL": cls.receiver.url}})

    def setUp(self) -> None:
        self.client = Client()
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_errors_carry_the_status_field_and_message_of_the_api(self) -> None:
        with self.assertRaises(ApiError) as caught:
            self.client.submit(payload(""))
        self.assertEqual((caught.exception.status, caught.exception.field), (400, "draft_text"))
        self.assertTrue(str(caught.exception).startswith("draft_text"))
        with self.assertRaises(ApiError) as caught:
            self.client.get("d_no_such_draft")
        self.assertEqual(caught.exception.status, 404)
        with self.assertRaises(ApiError) as caught:
            Client(token="wrong-token-0123456789").get("d_x")
        self.assertEqual(caught.exception.status, 401)
        first = self.client.submit(payload("Key reuse"), idempotency_key="py-key-1")
        self.assertEqual(self.client.submit(payload("Key reuse"), idempotency_key="py-key-1")["draft_id"], first["draft_id"])
        with self.assertRaises(ApiError) as caught:
            self.client.submit(payload("Another text"), idempotency_key="py-key-1")
        self.assertEqual((caught.exception.status, caught.exception.field), (409, "idempotency_key"))

    def test_an_oversized_body_is_a_413_api_error_not_a_broken_pipe(self) -> None:
        with self.assertRaises(ApiError) as caught:
            self.client.submit(payload("x" * (5 * 1024 * 1024)))
        self.assertEqual(caught.exception.status, 413)
        self.assertIn("larger than 65536 bytes", str(caught.exception))

    def test_submits_as_the_owner_in_reply_to_what_a_person_wrote(self) -> None:
        c = self.client
        with self.assertRaises(ApiError) as caught:
            c.submit(payload("Hi", destination_chat_id=str(FRIEND)), send_as="me")
        self.assertEqual((caught.exception.status, caught.exception.field), (400, "send_as"))
        wrote = control("POST", "/business/message", {"from_id": FRIEND, "text": "Lunch tomorrow?", "age_seconds": 3600})
        answer = c.submit(
            payload("Yes, 12:30 works.", destination_chat_id=str(FRIEND)), send_as="owner", reply_to_message_id=wrote["message_id"]
        )
        record = c.get(answer["draft_id"])
        self.assertEqual((record["send_as"], record["sender"]["kind"], record["reply_to_message_id"]), ("owner", "owner", wrote["message_id"]))
        self.assertEqual(record["answering"]["text"], "Lunch tomorrow?")
        # The post may wait for the review chat's pace (the answer is then "queued"): tap it once it is out.
        review_id = eventually(lambda: c.get(answer["draft_id"])["review_message_id"], what="review post")
        control("POST", "/tap", {"review_message_id": review_id, "data": "v1:send:" + answer["draft_id"]})
        final = c.wait(answer["draft_id"], timeout=20)
        self.assertEqual((final["status"], final["sent_as"]), ("sent", "owner"))

    def test_wait_times_out_on_a_draft_nobody_decides(self) -> None:
        answer = self.client.submit(payload("Nobody decides on me"))
        started = time.monotonic()
        with self.assertRaises(TimeoutError):
            self.client.wait(answer["draft_id"], timeout=0.5)
        self.assertLess(time.monotonic() - started, 5)

    def test_zz_end_to_end_revision_routed_to_margot_resubmission_approval_across_a_restart(self) -> None:
        c = self.client
        cursor = os.path.join(self.tmp.name, "events.cursor")
        handled: List[Dict[str, Any]] = []
        # Skip what earlier tests left in the feed: this test follows from here.
        start_seq = int(c._call("GET", "/events?after=0&limit=1000")["last_seq"])
        draft_review._write_cursor(cursor, start_seq)

        # 1. Submit; the review post goes out.
        first = c.submit(payload("Q2 revenue grew 12% to $4.1M."), idempotency_key="q2-v1")
        self.assertIn(first["status"], ("pending", "queued"))
        first_id = first["draft_id"]
        review_id = eventually(lambda: c.get(first_id)["review_message_id"], what="review post")

        # 2. The owner replies with a note addressed to Margot.
        control("POST", "/reply", {"review_message_id": review_id, "text": "Margot: check the Q2 numbers"})
        revised = c.wait(first_id, timeout=20)
        self.assertEqual((revised["status"], revised["revision_note"]), ("revise", "Margot: check the Q2 numbers"))
        # The post itself says so (one message per draft): its status line names the roles the note was told to.
        def post_told() -> List[Dict[str, Any]]:
            return [m for m in control("GET", "/review-chat")["messages"] if m["message_id"] == review_id and "✉️ Told" in m["text"]]

        post = eventually(post_told, what="the post saying the note was told")
        self.assertIn("✉️ Told Scribe and Margot.", post[-1]["text"])

        # 3. The events iterator hands over what happened so far; its cursor is saved.
        for event in c.events(cursor, follow=False):
            handled.append(event)
        mine = [e for e in handled if e["draft_id"] == first_id]
        self.assertEqual([e["to"] for e in mine], ["queued", "pending", "revise"])
        self.assertEqual(mine[-1]["notify_roles"], ["Scribe", "Margot"])
        self.assertEqual(mine[-1]["revision_note"], "Margot: check the Q2 numbers")
        self.assertEqual(draft_review._read_cursor(cursor), handled[-1]["seq"])

        # 4. The daemon restarts; a follower keeps iterating through it.
        followed: List[Dict[str, Any]] = []
        stop = threading.Event()

        def follow() -> None:
            for event in Client().events(os.path.join(self.tmp.name, "follow.cursor"), follow=True, poll_seconds=0.2):
                followed.append(event)
                if event["to"] == "sent" or stop.is_set():
                    break

        draft_review._write_cursor(os.path.join(self.tmp.name, "follow.cursor"), handled[-1]["seq"])
        follower = threading.Thread(target=follow, daemon=True)
        follower.start()
        control("POST", "/daemon/restart")

        # 5. The new version, resubmitted with `revises` where the daemon knows it.
        fixed = payload("Q2 revenue grew 11% to $4.0M (checked by Margot).", originating_intent_id="intent-q2")
        try:
            second = c.submit(dict(fixed, revises=first_id), idempotency_key="q2-v2")
            self.revises_used = True
        except ApiError as err:
            if err.field != "revises":
                raise
            second = c.submit(fixed, idempotency_key="q2-v2")
            self.revises_used = False
        second_id = second["draft_id"]
        review2 = eventually(lambda: c.get(second_id)["review_message_id"], what="second review post")
        control("POST", "/react", {"review_message_id": review2, "emoji": "👍"})
        sent = c.wait(second_id, timeout=30)
        self.assertEqual(sent["status"], "sent")
        if self.revises_used:
            self.assertEqual(c.get(first_id).get("revised_by"), second_id)

        # 6. The iterator resumes from its cursor: only what is new, nothing twice.
        for event in c.events(cursor, follow=False):
            handled.append(event)
        seqs = [e["seq"] for e in handled]
        self.assertEqual(len(seqs), len(set(seqs)), "an event was handled twice")
        feed = [e for e in c._call("GET", f"/events?after={start_seq}&limit=1000")["events"]]
        self.assertEqual(seqs, [e["seq"] for e in feed], "the iterator missed an event")
        second_path = [e["to"] for e in handled if e["draft_id"] == second_id]
        self.assertEqual(second_path[:2], ["queued", "pending"])
        self.assertEqual(second_path[-1], "sent")
        self.assertIn("approved", second_path)
        follower.join(timeout=30)
        stop.set()
        self.assertEqual([e["seq"] for e in followed], [e["seq"] for e in feed if e["seq"] > mine[-1]["seq"]][: len(followed)])
        self.assertEqual(followed[-1]["to"], "sent")

        # 7. Every event of the whole run also came by callback, signed, in order, acknowledged once.
        everything = c._call("GET", "/events?after=0&limit=1000")["events"]
        eventually(lambda: {e["seq"] for e in everything} <= set(self.receiver.acked), timeout=30, what="every event by callback")
        figures = self.receiver.figures(everything)
        figures["revises_used"] = self.revises_used
        figures["daemon_restarts"] = 1
        with open(os.environ["E2E_FIGURES_FILE"], "w") as f:
            json.dump(figures, f)
        self.assertEqual(figures["missed"], 0)
        self.assertEqual(figures["duplicates"], 0)
        self.assertEqual(figures["out_of_order"], 0)
        self.assertGreaterEqual(figures["retries"], 1)
        by_callback = [self.receiver.acked[e["seq"]]["event"] for e in feed]
        self.assertEqual(by_callback, feed, "a callback body differs from its event in the feed")


if __name__ == "__main__":
    unittest.main()
