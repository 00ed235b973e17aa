"""Scripted fake model servers for driving the real ``claude``, ``gemini`` and ``codex`` binaries offline
(Anthropic's Messages API, Gemini's generateContent, OpenAI's streamed Responses API).

Each server plays a *script*: a list of steps, one per model turn. A step is a list of tool calls
``(tool_name, input)``; when the script runs out, the model answers with a final text and stops. The
step is chosen by counting the model's turns already in the conversation, so retries and tool results
need no state on the server. Every request is recorded, so tests can read what reached the model
(for example, a deny reason inside a tool result).

Claude subagents get their own script: the first user message of a subagent is the ``prompt`` the
parent gave the Agent tool, and a script can be registered for a marker in that prompt.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = list[tuple[str, dict[str, Any]]]


@dataclass
class Script:
    steps: list[Step]
    final_text: str = "done"
    subagents: dict[str, list[Step]] = field(default_factory=dict)  # marker in the first prompt -> steps
    finals: dict[str, str] = field(default_factory=dict)  # marker in the first prompt -> its final text
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # the URL path of each request (Gemini's names the model)

    def tool_results(self) -> list[str]:
        """Every tool result text the CLI sent back to the model, in order (both dialects)."""
        out: list[str] = []
        seen: set[str] = set()
        for req in self.requests:
            for text in _results_in(req):
                if text not in seen:
                    seen.add(text)
                    out.append(text)
        return out


def _results_in(req: dict[str, Any]) -> Iterator[str]:
    for msg in req.get("messages", []):  # Anthropic
        content = msg.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, list):
                        yield " ".join(str(b.get("text", "")) for b in inner if isinstance(b, dict))
                    else:
                        yield str(inner)
    for turn in req.get("contents", []):  # Gemini
        for part in turn.get("parts", []):
            if isinstance(part, dict) and "functionResponse" in part:
                yield json.dumps(part["functionResponse"].get("response"))
    for item in req.get("input", []) if isinstance(req.get("input"), list) else []:  # Responses (Codex)
        if isinstance(item, dict) and item.get("type") in _RESPONSES_OUTPUTS:
            yield str(item.get("output"))


def _first_user_text(messages: list[dict[str, Any]]) -> str:
    for msg in messages:
        if msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _claude_stream(blocks: list[dict[str, Any]], stop_reason: str) -> bytes:
    # A unique id per message: Claude merges assistant messages that share one.
    events = [("message_start", {"type": "message_start", "message": {
        "id": f"msg_{uuid.uuid4().hex[:12]}", "type": "message", "role": "assistant", "model": "fake", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    for i, block in enumerate(blocks):
        if block["type"] == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
                   ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": i})]
    events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                                     "stop_sequence": None},
                                  "usage": {"output_tokens": 5}}),
               ("message_stop", {"type": "message_stop"})]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _claude_reply(script: Script, req: dict[str, Any]) -> bytes:
    messages = req.get("messages", [])
    steps = script.steps
    first = _first_user_text(messages)
    for marker, sub_steps in script.subagents.items():
        if marker in first:
            steps = sub_steps
    # The turn is the number of tool-result rounds so far (robust to how the CLI groups messages).
    turn = sum(1 for m in messages if m.get("role") == "user" and isinstance(m.get("content"), list)
               and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"]))
    if turn < len(steps):
        blocks = [{"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:16]}", "name": name, "input": inp}
                  for i, (name, inp) in enumerate(steps[turn])]
        return _claude_stream(blocks, "tool_use")
    return _claude_stream([{"type": "text", "text": _final(script, first)}], "end_turn")


def _final(script: Script, first_prompt: str) -> str:
    return next((text for marker, text in script.finals.items() if marker in first_prompt), script.final_text)


def _gemini_reply(script: Script, req: dict[str, Any]) -> bytes:
    contents = req.get("contents", [])
    steps = script.steps
    first = next((" ".join(str(p.get("text", "")) for p in c.get("parts", []) if isinstance(p, dict))
                  for c in contents if c.get("role") == "user"), "")
    for marker, sub_steps in script.subagents.items():
        if marker in first:
            steps = sub_steps
    turn = sum(1 for c in contents if c.get("role") == "model")
    if turn < len(steps):
        parts = [{"functionCall": {"name": name, "args": inp}} for name, inp in steps[turn]]
    else:
        parts = [{"text": _final(script, first)}]
    chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}
    return f"data: {json.dumps(chunk)}\n\n".encode()


_RESPONSES_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _responses_reply(script: Script, req: dict[str, Any]) -> bytes:
    """A streamed Responses API answer. A step's ("apply_patch", {"patch": text}) is Codex's freeform patch
    tool (a custom tool call); any other (name, arguments) is a function call (Codex: exec_command)."""
    items = [i for i in req.get("input", []) if isinstance(i, dict)]
    turn = sum(1 for i in items if i.get("type") in _RESPONSES_OUTPUTS)
    first = " ".join(str(part.get("text", "")) for i in items if i.get("role") == "user"
                     for part in (i.get("content") or []) if isinstance(part, dict))
    steps = next((sub for marker, sub in script.subagents.items() if marker in first), script.steps)
    rid = f"resp_{uuid.uuid4().hex[:12]}"
    if turn < len(steps):
        output: list[dict[str, Any]] = []
        for n, (name, inp) in enumerate(steps[turn]):
            call_id = f"call_{uuid.uuid4().hex[:12]}"
            if name == "apply_patch":
                output.append({"type": "custom_tool_call", "id": f"ctc_{rid}_{n}", "call_id": call_id,
                               "name": name, "input": inp["patch"], "status": "completed"})
            else:
                output.append({"type": "function_call", "id": f"fc_{rid}_{n}", "call_id": call_id, "name": name,
                               "arguments": json.dumps(inp), "status": "completed"})
    else:
        output = [{"type": "message", "id": f"msg_{rid}", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": _final(script, first), "annotations": []}]}]
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {
        "id": rid, "object": "response", "status": "in_progress", "output": []}}]
    for n, item in enumerate(output):
        events += [{"type": "response.output_item.added", "output_index": n, "item": item},
                   {"type": "response.output_item.done", "output_index": n, "item": item}]
    events.append({"type": "response.completed", "response": {
        "id": rid, "object": "response", "status": "completed", "output": output,
        "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                  "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


@contextmanager
def fake_model(script: Script) -> Iterator[str]:
    """Serve the three APIs on one loopback port; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            req = json.loads(self.rfile.read(length) or b"{}")
            script.requests.append(req)
            script.paths.append(self.path)
            if self.path.startswith("/v1/messages"):
                body = _claude_reply(script, req)
            elif ":streamGenerateContent" in self.path or ":generateContent" in self.path:
                body = _gemini_reply(script, req)
            elif self.path.startswith("/v1/responses"):
                body = _responses_reply(script, req)
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
