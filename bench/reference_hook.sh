#!/usr/bin/env bash
# The reference for bench/hook.py: the same gate as acteon-swarm-hook, written the usual way in bash with
# jq and curl. Reads a Claude PreToolUse event on stdin, asks the gateway, answers in Claude's dialect,
# and fails closed (deny) on any error.
set -uo pipefail
event=$(cat)
body=$(jq -c --arg run "${ACTEON_RUN_ID:-default}" --arg agent "${ACTEON_AGENT_ID:-bash-agent}" \
  '{run_id: $run, agent_id: $agent, provider: "claude-code", tool: .tool_name, input: .tool_input,
    session_id: .session_id, cwd: .cwd, tool_use_id: .tool_use_id}' <<<"$event") || body=""
if [ -z "$body" ]; then
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"bad input"}}'
  exit 2
fi
reply=$(curl -sS --max-time 5 -H "Authorization: Bearer $ACTEON_AGENT_KEY" -H "Content-Type: application/json" \
  -d "$body" "${ACTEON_URL:-http://127.0.0.1:8080}/v1/dispatch") || reply=""
jq -c 'if .allowed == true then
         {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow",
                               permissionDecisionReason: ("acteon-swarm: " + .outcome)}}
       else
         {hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
                               permissionDecisionReason: ("acteon-swarm blocked this call: " + (.reason // "gateway error"))}}
       end' <<<"${reply:-{\}}" || {
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"gateway error"}}'
  exit 2
}
