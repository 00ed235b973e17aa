// The acteon-swarm gate for OpenCode: every tool call goes through `acteon-swarm-hook gate --cli opencode`
// (the same executable, rules and answers as for the other CLIs) before it runs, and fails closed: a deny,
// a hook that fails, times out or answers anything unexpected throws, which blocks the call and tells the
// model why. Written by `acteon-swarm-hook install --cli opencode` (docs/clis.md); `uninstall` removes it.
// acteon-swarm
import { spawn } from "node:child_process";

const GATE = __GATE__;
const COMPLETE = __COMPLETE__;
const BUDGET_MS = __BUDGET_MS__; // the hook answers within its own budget; this is the last resort

function run(command, event, timeoutMs) {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let done = false;
    const finish = (code, why) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ code, out, err: why ? `${err}${why}` : err });
    };
    let child;
    try {
      child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({ code: -1, out, err: String(e) });
      return;
    }
    const timer = setTimeout(() => {
      try { child.kill("SIGKILL"); } catch { /* gone already */ }
      finish(-1, `the gate did not answer within ${timeoutMs} ms`);
    }, timeoutMs);
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    child.on("error", (e) => finish(-1, String(e)));
    child.on("close", (code) => finish(code, ""));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

function lastJson(text) {
  try {
    const line = text.trim().split("\n").pop();
    return line ? JSON.parse(line) : null;
  } catch {
    return null;
  }
}

export const ActeonSwarmGate = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const args = output && output.args && typeof output.args === "object" ? output.args : {};
    const event = { hook_event_name: "PreToolUse", session_id: input.sessionID, tool_use_id: input.callID,
                    cwd: directory, tool_name: input.tool, tool_input: args };
    const r = await run(GATE, event, BUDGET_MS);
    const answer = lastJson(r.out);
    if (r.code === 0 && answer && typeof answer === "object" && !Array.isArray(answer)) {
      const specific = answer.hookSpecificOutput;
      if (specific === undefined) return; // no decision: the gateway found nothing against the call
      if (specific && specific.permissionDecision === "allow" && specific.updatedInput &&
          typeof specific.updatedInput === "object") {
        for (const key of Object.keys(args)) delete args[key]; // a reroute replaces the whole input
        Object.assign(args, specific.updatedInput);
        return;
      }
    }
    const specific = answer && answer.hookSpecificOutput;
    const reason = (specific && specific.permissionDecisionReason) || r.err.trim() ||
      "acteon-swarm: the gate gave no answer; call blocked (fail closed)";
    throw new Error(reason);
  },
  "tool.execute.after": async (input, output) => {
    const event = { hook_event_name: "PostToolUse", session_id: input.sessionID, tool_use_id: input.callID,
                    cwd: directory, tool_name: input.tool, tool_input: input.args || {},
                    tool_response: output ? { output: output.output, metadata: output.metadata } : null };
    await run(COMPLETE, event, 10000); // reporting never blocks: its failures are the hook's to log
  },
});
