"""The real ``claude`` binary behind the hook, a person deciding in the browser: the approved call runs,
the rejected one does not, and Claude is told the person's reason."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.console.conftest import Gateway, sign_in
from tests.e2e.conftest import Result, Sandbox, run_claude
from tests.e2e.fake_models import Script

pytestmark = pytest.mark.e2e


def _bash(command: str) -> tuple[str, dict[str, str]]:
    return ("Bash", {"command": command, "description": "step"})


@pytest.mark.slow
def test_claude_waits_for_the_console_and_hears_the_reason(
        claude_bin: str, sandbox: Sandbox, gateway: Gateway, context: Any) -> None:
    key = gateway.run("cc-claude")
    # The command word comes from a file written a step before: nobody can know it in advance, a person decides.
    script = Script([[_bash("echo echo > .tool")], [_bash("$(cat .tool) approved > out.txt")],
                     [_bash("$(cat .tool) rejected > no.txt")]])
    done: list[Result | BaseException] = []

    def agent_session() -> None:
        try:
            done.append(run_claude(claude_bin, sandbox, script, gateway=gateway.url, run_id="cc-claude", key=key))
        except BaseException as e:
            done.append(e)

    agent = threading.Thread(target=agent_session)
    agent.start()
    try:
        page = sign_in(context, gateway, gateway.operator("otto", "operator"))
        first = page.locator("article.approval", has_text="approved > out.txt")
        first.wait_for(timeout=60_000)
        first.click()
        page.keyboard.press("a")
        first.wait_for(state="detached")
        second = page.locator("article.approval", has_text="rejected > no.txt")
        second.wait_for(timeout=60_000)
        second.click()
        page.keyboard.press("r")
        page.fill("#reject-reason", "one file is enough")
        page.click("#reject-confirm")
        second.wait_for(state="detached")
    finally:
        agent.join(timeout=240)
    (result,) = done
    assert isinstance(result, Result), result
    assert result.returncode == 0, result.stderr
    assert (sandbox.workspace / "out.txt").read_text() == "approved\n"
    assert not (sandbox.workspace / "no.txt").exists()
    told = result.script.tool_results()[-1]  # what Claude heard about the rejected call
    assert "one file is enough" in told and "otto" in told, result.script.tool_results()
