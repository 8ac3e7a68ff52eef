"""The fake Messages API server: a real HTTP server on 127.0.0.1 answering from a script.

What a test can script, per request, in order (`push`) or computed from the request
(`responder`):

- `Reply`: a 200 Messages response (content blocks, stop_reason, usage incl. cache fields);
- `HttpError`: an error status (429/500/529/...) with an Anthropic-shaped error body and
  optional headers such as `retry-after`;
- `Slow`: wait before answering (to trigger client timeouts); the wait ends early when the
  server stops, so teardown never hangs;
- `Malformed`: a 200 whose body is not a Messages response (bytes as given);
- `Drop`: close the connection without answering (a connection error for the client).

When the script is empty and no responder is set, the server answers 418 with a message saying
so: a non-retryable status, so a test that under-scripts fails fast and clearly.

Usage when a `Reply` does not give it: the server simulates prompt caching. The cacheable
prefix (tools + system blocks up to the last block carrying `cache_control`) costs
`cache_creation_input_tokens` the first time this server sees it and `cache_read_input_tokens`
afterwards; the rest of the request is `input_tokens`. Token counts are len(bytes) // 4, which
is deterministic, which is all tests need.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Reply:
    content: list[JsonDict]
    stop_reason: str | None = None  # default: "tool_use" if any tool_use block, else "end_turn"
    usage: JsonDict | None = None  # default: simulated (see module docstring)
    model: str | None = None  # default: the requested model
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HttpError:
    status: int
    error_type: str = "api_error"
    message: str = "injected error"
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # raw body instead of the Anthropic-shaped error JSON


@dataclass(frozen=True)
class Slow:
    delay_s: float
    then: Reply | HttpError | None = None  # answered after the delay (if the client still waits)


@dataclass(frozen=True)
class Malformed:
    body: bytes = b'{"this is": not json'
    content_type: str = "application/json"


@dataclass(frozen=True)
class Drop:
    """Close the connection without answering."""


Scripted = Reply | HttpError | Slow | Malformed | Drop
Responder = Callable[["ReceivedRequest"], Scripted]


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    raw: bytes
    server_port: int
    received_at: float  # time.monotonic() on arrival

    @property
    def body(self) -> JsonDict:
        """The JSON body; {} when it was not a JSON object."""
        try:
            data = json.loads(self.raw)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    def tool_results(self) -> dict[str, Any]:
        """tool_use_id → content of each tool_result in the last message (for responders)."""
        messages = self.body.get("messages") or []
        content = messages[-1].get("content") if messages else None
        if not isinstance(content, list):
            return {}
        return {block["tool_use_id"]: block.get("content") for block in content
                if isinstance(block, dict) and block.get("type") == "tool_result"}


# Every request any fake server received during the test session, in arrival order. Suite-wide
# tests (e.g. "no label text ever reached a model") scan this list.
ALL_REQUESTS: list[ReceivedRequest] = []
_ALL_LOCK = threading.Lock()

_ids = itertools.count(1)


def text(value: str) -> JsonDict:
    return {"type": "text", "text": value}


def tool_use(name: str, input: JsonDict, id: str | None = None) -> JsonDict:
    return {"type": "tool_use", "id": id or f"toolu_fake_{next(_ids):06d}", "name": name,
            "input": input}


def reply(*blocks: JsonDict, usage: JsonDict | None = None,
          stop_reason: str | None = None) -> Reply:
    return Reply(content=list(blocks), usage=usage, stop_reason=stop_reason)


def http_error(status: int, retry_after: float | None = None, message: str = "injected error",
               error_type: str | None = None) -> HttpError:
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    default_type = {429: "rate_limit_error", 529: "overloaded_error", 400: "invalid_request_error",
                    401: "authentication_error"}.get(status, "api_error")
    return HttpError(status=status, error_type=error_type or default_type, message=message,
                     headers=headers)


def cacheable_prefix_bytes(body: JsonDict) -> bytes:
    """Canonical bytes of tools + system up to the last system block with cache_control.

    Empty when no system block is marked (nothing is cacheable). Kept independent of the
    package's own helper so tests of that helper compare against a second implementation.
    """
    system = body.get("system")
    if not isinstance(system, list):
        return b""
    marked = [i for i, block in enumerate(system)
              if isinstance(block, dict) and block.get("cache_control")]
    if not marked:
        return b""
    prefix = {"tools": body.get("tools", []), "system": system[: marked[-1] + 1]}
    return json.dumps(prefix, sort_keys=True, separators=(",", ":")).encode()


class FakeMessagesServer:
    """A scripted Messages API on 127.0.0.1:<free port>. Thread-safe; start() / stop()."""

    def __init__(self) -> None:
        self.requests: list[ReceivedRequest] = []
        self.responder: Responder | None = None
        self._script: list[Scripted] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._seen_prefixes: set[bytes] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------
    def start(self) -> Self:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("fake Messages API server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- scripting -------------------------------------------------------------------------
    def push(self, *items: Scripted) -> None:
        with self._lock:
            self._script.extend(items)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    @property
    def bodies(self) -> list[JsonDict]:
        return [r.body for r in self.requests if r.path.endswith("/messages")]

    # --- serving ---------------------------------------------------------------------------
    def _record(self, request: ReceivedRequest) -> None:
        with self._lock:
            self.requests.append(request)
        with _ALL_LOCK:
            ALL_REQUESTS.append(request)

    def _next(self, request: ReceivedRequest) -> Scripted:
        with self._lock:
            if self._script:
                return self._script.pop(0)
        if self.responder is not None:
            return self.responder(request)
        return HttpError(status=418, error_type="invalid_request_error",
                         message="fake server: no scripted response left for this request")

    def _simulated_usage(self, body: JsonDict, content: list[JsonDict]) -> JsonDict:
        prefix = cacheable_prefix_bytes(body)
        total = len(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
        prefix_tokens = len(prefix) // 4
        with self._lock:
            seen = prefix in self._seen_prefixes
            if prefix:
                self._seen_prefixes.add(prefix)
        output = len(json.dumps(content, sort_keys=True).encode()) // 4
        return {
            "input_tokens": max(total - len(prefix), 0) // 4,
            "cache_creation_input_tokens": 0 if seen else prefix_tokens,
            "cache_read_input_tokens": prefix_tokens if seen else 0,
            "output_tokens": max(output, 1),
        }

    def message_json(self, item: Reply, body: JsonDict) -> JsonDict:
        has_tool = any(block.get("type") == "tool_use" for block in item.content)
        return {
            "id": f"msg_fake_{next(_ids):06d}",
            "type": "message",
            "role": "assistant",
            "model": item.model or body.get("model", "fake-model"),
            "content": item.content,
            "stop_reason": item.stop_reason or ("tool_use" if has_tool else "end_turn"),
            "stop_sequence": None,
            "usage": item.usage if item.usage is not None
            else self._simulated_usage(body, item.content),
        }

    def validate(self, request: ReceivedRequest) -> tuple[int, str] | None:
        return _validate(request)

    def error_json(self, error: HttpError) -> JsonDict:
        return {"type": "error", "error": {"type": error.error_type, "message": error.message}}

    def wait_stopping(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True if the server is stopping meanwhile."""
        return self._stopping.wait(seconds)


def _make_handler(server: FakeMessagesServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in separate writes; without this, Nagle plus delayed ACKs
        # add ~40 ms to every answer on loopback.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            request = ReceivedRequest(
                method="POST", path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                raw=raw, server_port=server.port, received_at=time.monotonic(),
            )
            server._record(request)
            problem = server.validate(request)
            if problem is not None:
                self._send_error(HttpError(status=problem[0], error_type="invalid_request_error",
                                           message=problem[1]))
                return
            self._answer(server._next(request), request)

        def _answer(self, item: Scripted, request: ReceivedRequest) -> None:
            match item:
                case Slow(delay_s=delay, then=then):
                    if server.wait_stopping(delay):
                        self.close_connection = True
                        return
                    if then is not None:
                        self._answer(then, request)
                    else:
                        self._send_error(HttpError(status=418, message="fake server: Slow "
                                                   "without a follow-up answer"))
                case Reply():
                    payload = json.dumps(server.message_json(item, request.body)).encode()
                    self._send(200, payload, "application/json", item.headers)
                case HttpError():
                    self._send_error(item)
                case Malformed(body=body, content_type=content_type):
                    self._send(200, body, content_type, {})
                case Drop():
                    self.close_connection = True
                    self.connection.close()

        def _send_error(self, error: HttpError) -> None:
            body = error.body if error.body is not None else json.dumps(
                server.error_json(error)).encode()
            # Errors must not be retried by the SDK itself; our client owns retries. The header
            # is harmless when the SDK's retries are already off.
            self._send(error.status, body, "application/json",
                       {"x-should-retry": "false", **error.headers})

        def _send(self, status: int, body: bytes, content_type: str,
                  headers: dict[str, str]) -> None:
            try:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.send_header("request-id", f"req_fake_{next(_ids):06d}")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                # The client gave up (timeout) before the answer came; nothing to do.
                self.close_connection = True

    return Handler


def _validate(request: ReceivedRequest) -> tuple[int, str] | None:
    """The checks the real Messages API would make that matter to tests."""
    refused = _check_route_and_body(request, "/v1/messages", ("model", "max_tokens", "messages"))
    if refused is None and "anthropic-version" not in request.headers:
        return 400, "fake server: anthropic-version header missing"
    return refused


def _check_route_and_body(request: ReceivedRequest, route: str,
                          required: tuple[str, ...]) -> tuple[int, str] | None:
    """(status, message) refusing a request to another path, a body that is not a JSON object,
    a streaming request or one missing a `required` field; None when it passes."""
    if not request.path.rstrip("/").endswith(route):
        return 404, f"fake server: no route for {request.path}"
    body = request.body
    if not body:
        return 400, "fake server: body is not a JSON object"
    if body.get("stream"):
        return 400, "fake server: only stream=false is supported"
    missing = [k for k in required if k not in body]
    if missing:
        return 400, f"fake server: missing required fields {missing}"
    return None



class FakeChatServer(FakeMessagesServer):
    """The same scripted server speaking OpenAI's Chat Completions (`POST /v1/chat/completions`).

    Scripts use the same `Reply` / `HttpError` / `Slow` / ... items: a Reply's text blocks become
    the message content and its tool_use blocks its `tool_calls` (arguments as a JSON string, or
    the block's `raw_arguments` verbatim when given, to script malformed arguments). Usage when
    not given: prompt_tokens = len(body) // 4, no cached tokens, completion_tokens from the
    content; a Reply's `usage` is sent as given (Chat Completions field names).
    """

    @property
    def bodies(self) -> list[JsonDict]:
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def validate(self, request: ReceivedRequest) -> tuple[int, str] | None:
        refused = _check_route_and_body(request, "/v1/chat/completions", ("model", "messages"))
        if refused is None and not request.headers.get("authorization", "").startswith("Bearer "):
            return 401, "fake server: no bearer token"
        return refused

    def error_json(self, error: HttpError) -> JsonDict:
        return {"error": {"message": error.message, "type": error.error_type, "code": None}}

    def message_json(self, item: Reply, body: JsonDict) -> JsonDict:
        texts = [b["text"] for b in item.content if b.get("type") == "text"]
        calls = [{"id": b.get("id"), "type": "function",
                  "function": {"name": b.get("name"),
                               "arguments": b["raw_arguments"] if "raw_arguments" in b
                               else json.dumps(b.get("input"))}}
                 for b in item.content if b.get("type") == "tool_use"]
        message: JsonDict = {"role": "assistant", "content": "\n".join(texts) or None}
        if calls:
            message["tool_calls"] = calls
        finish = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}
        stop = item.stop_reason or ("tool_use" if calls else "end_turn")
        if item.usage is not None:
            usage = item.usage
        else:
            total = len(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())
            output = max(len(json.dumps(item.content, sort_keys=True).encode()) // 4, 1)
            usage = {"prompt_tokens": total // 4, "completion_tokens": output,
                     "total_tokens": total // 4 + output}
        return {
            "id": f"chatcmpl_fake_{next(_ids):06d}",
            "object": "chat.completion",
            "created": 0,
            "model": item.model or body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": finish.get(stop, stop)}],
            "usage": usage,
        }
