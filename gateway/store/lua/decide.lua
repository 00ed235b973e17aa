-- decide.lua: one decision, one round trip (docs/rules.md, docs/gateway.md).
--
-- Checks the run, the approval state, every collected gate and the run quota; if the call may run,
-- consumes all of them at once. A refused call consumes nothing. Then appends the audit record and
-- bumps the stats counters. With dry=1 nothing at all is written.
--
-- Keep to the Lua 5.1 subset that both Redis and fakeredis (lupa) run: no goto, no integer division,
-- no cjson.
--
-- Arguments arrive by name: gateway/store/decide_args.py builds both lists in the order the two `unpack`
-- lines below read them (a test keeps the names equal on both sides).
--
-- KEYS (all of them the run's: one slot of a Redis Cluster): the run hash, its stats hash, its audit stream, its
--       approvals index, the approval fingerprint (the call's identity for approvals), the hash of a new
--       approval, the run's copy of the agent's scope claim (any key of the run when it holds none), the run's live sub-agents (zset member -> lease end), the
--       run's attempts hash (agent -> current attempt), the run's sets of written and of downloaded paths;
--       then one key per gate.
-- ARGV: now override (ms, '' = Redis TIME), dry ('1'/'0'), kind (suppress|allow|approval), the run rules
--       version the call was evaluated with, the outcome when allowed (executed|rerouted);
--       the new approval's id, its timeout (ms), the approval key prefix, how long (ms) a resolved approval
--       stays readable, the notify channel (a new approval is published there: the console's queue, webhooks);
--       the terminal rule's name, its reason (replaced here when a gate, the quota, the run or a rejection
--       decides), the call's audit fields as one JSON string (packed by the gateway: one argument instead of
--       dozens keeps the round trip cheap);
--       the agent id, the global rule pack version and serial the call was evaluated with, the fencing token of
--       the agent's scope claim ('' = none);
--       for a call that spawns a sub-agent ('' otherwise): its member in the live set, the caller's nesting
--       depth (1: a top-level agent), the default live cap, the default maximum depth, and the lease (ms)
--       after which a sub-agent whose end was never reported stops counting;
--       the attempt the agent's key was minted for ('' = a key without one);
--       the paths the call writes, newline-separated ('' = none), how long (ms) the run remembers them, and
--       which of them the call fills with bytes from the network, newline-separated;
--       the number of approval record pairs A and of gates G; then A field/value pairs; then 7 values per
--       gate: kind (t|d), limit or 0, window/ttl ms, scope (agent|any), member (action id), rule name, reason.
-- Returns: {outcome, failed gate index (0 none, -1 quota, -2 cancelled, -3 rejected, -4 claim lapsed,
--           -5 sub-agent cap or depth, -6 attempt superseded),
--           retry_after_ms, approval_id, rule, reason, quota_warn, now}
--          or {'unknown_run'} / {'stale_rules', version} / {'stale_global', version} / {'no_global_rules'}
--          (nothing written: the gateway re-reads the rules and evaluates again)

local run_key, stats_key, audit_key, approvals_key, fingerprint_key, approval_key, claim_key,
      live_agents_key, attempts_key, written_key, fetched_key = unpack(KEYS, 1, 11)
local now_override, dry, kind, expected_rules_version, outcome_if_allowed,
      new_approval_id, approval_timeout_ms, approval_prefix, approval_retention_ms, notify_channel,
      rule, reason, call_json, agent, expected_global_version, expected_global_serial, fence,
      spawn, depth, default_max_live, default_max_depth, spawn_lease_ms, key_attempt,
      writes, written_retention_ms, fetched, n_approval, n_gates = unpack(ARGV, 1, 28)
local FIXED_KEYS, FIXED_ARGS = 11, 28

local now = tonumber(now_override)
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
dry = dry == '1'
n_approval, n_gates = tonumber(n_approval), tonumber(n_gates)
local approval_fields = {}
for i = 1, n_approval * 2 do approval_fields[i] = ARGV[FIXED_ARGS + i] end
local gates = {}
for g = 1, n_gates do
  local b = FIXED_ARGS + n_approval * 2 + (g - 1) * 7
  gates[g] = {kind = ARGV[b + 1], limit = tonumber(ARGV[b + 2]), span = tonumber(ARGV[b + 3]),
              scope = ARGV[b + 4], member = ARGV[b + 5], name = ARGV[b + 6], reason = ARGV[b + 7],
              key = KEYS[FIXED_KEYS + g]}
end

local run = redis.call('HMGET', run_key, 'status', 'rules_version', 'q_max', 'q_window', 'q_overage', 'q_start', 'q_used',
                      's_max', 's_depth', 'g_serial', 'g_version')
if not run[1] then return {'unknown_run'} end
local rules_version = run[2] or '0'
if rules_version ~= expected_rules_version then return {'stale_rules', rules_version} end

-- Every process decides with the pack in force, never with one it cached before a change or a store
-- restart: a pack uploaded through the API must not silently give way to a looser one. The run holds a
-- copy of which pack that is (gateway/store/packs.py): an older serial is stale; a newer one was read from
-- the pack's own hash while its install was still copying it to the runs, and raises the copy.
local global_serial, global_version = tonumber(run[10] or '0'), run[11]
if not global_version then return {'no_global_rules'} end
local caller_serial = tonumber(expected_global_serial) or 0
if caller_serial < global_serial or (caller_serial == global_serial and global_version ~= expected_global_version) then
  return {'stale_global', global_version}
end
if caller_serial > global_serial and not dry then
  redis.call('HSET', run_key, 'g_serial', expected_global_serial, 'g_version', expected_global_version)
end

local outcome = 'suppressed'
local failed = 0
-- An agent working under a scope claim holds the claim's fencing token: once the claim lapsed (no
-- heartbeat) or went to someone else, every call of that agent is refused, whatever the rules say.
if fence and fence ~= '' then
  local held = redis.call('HMGET', claim_key, 'token', 'expires_ms')
  if held[1] ~= fence or tonumber(held[2] or '0') <= now then
    kind = 'fenced'
    failed = -4
    rule = 'scope-claim'
    reason = 'the scope claim this agent works under lapsed or was taken over (fencing token ' .. fence ..
             ' is no longer current): its writes are refused'
  end
end
-- An agent whose key was minted for one attempt of a subtask (a worker machine runs it): once another
-- attempt is current (the subtask re-runs elsewhere: its lease was lost), every call of this one is
-- refused, whatever the rules say, and audited as superseded. Only the exact current attempt acts.
if key_attempt and key_attempt ~= '' then
  local current = redis.call('HGET', attempts_key, agent)
  if current ~= key_attempt then
    kind = 'superseded'
    failed = -6
    outcome = 'superseded'
    rule = 'attempt-superseded'
    reason = 'this key is for attempt ' .. key_attempt .. ' of agent ' .. agent .. ', but the current attempt is ' ..
             (current or 'none') .. ': the subtask was given to another worker, and this agent is cut off'
  end
end
local retry = 0
local approval_id = ''
local approved_key = nil
-- of the approval this call consumed or was rejected by: who decided, why, and the hash of what they saw
local decided_by, decision_reason, shown_sha256 = '', '', ''
local quota_warn = 0

local function create_approval()
  approval_id = new_approval_id
  outcome = 'pending_approval'
  if dry then approval_id = '' return end
  local timeout = tonumber(approval_timeout_ms)
  local retention = timeout + tonumber(approval_retention_ms)
  redis.call('HSET', approval_key, 'id', approval_id, 'status', 'pending', 'created_ms', now,
             'expires_ms', now + timeout, 'timeout_ms', timeout, unpack(approval_fields))
  redis.call('PEXPIRE', approval_key, retention)
  redis.call('SET', fingerprint_key, approval_id, 'PX', retention)
  redis.call('ZADD', approvals_key, now, approval_id)
  redis.call('PUBLISH', notify_channel, 'approval-new:' .. approval_id)
end

local may_run = false
if kind == 'allow' then
  may_run = true
elseif kind == 'approval' then
  local existing = redis.call('GET', fingerprint_key)
  if not existing then
    create_approval()
  else
    -- Same slot as the fingerprint (hash tag), built from the id the fingerprint points to.
    local akey = approval_prefix .. existing
    local a = redis.call('HMGET', akey, 'status', 'expires_ms', 'use_by_ms', 'resolved_by', 'resolution_reason',
                         'shown_sha256')
    local status = a[1]
    if status == 'pending' and now < tonumber(a[2]) then
      outcome = 'pending_approval'
      approval_id = existing
    elseif status == 'approved' and now < tonumber(a[3] or '0') then
      may_run = true
      approved_key = akey
      approval_id = existing
      decided_by, decision_reason, shown_sha256 = a[4] or '', a[5] or '', a[6] or ''
    elseif status == 'rejected' then
      outcome = 'suppressed'
      failed = -3
      approval_id = existing
      decided_by, decision_reason, shown_sha256 = a[4] or '', a[5] or '', a[6] or ''
      reason = 'rejected by ' .. (a[4] or 'an operator') .. ((a[5] and a[5] ~= '') and (': ' .. a[5]) or '')
    else
      -- expired, used, or vanished: a new call needs a new approval
      create_approval()
    end
  end
end

if may_run then
  if run[1] == 'cancelled' then
    outcome = 'cancelled'
    failed = -2
    rule = 'run-cancelled'
    reason = 'the run was cancelled'
  else
    for g = 1, n_gates do
      local gate = gates[g]
      if gate.kind == 't' then
        local floor = '(' .. (now - gate.span)
        local count = redis.call('ZCOUNT', gate.key, floor, '+inf')
        if count >= gate.limit then
          -- The call passes once enough of the oldest in-window entries have left the window.
          local entry = redis.call('ZRANGEBYSCORE', gate.key, floor, '+inf', 'WITHSCORES', 'LIMIT', count - gate.limit, 1)
          failed = g
          retry = tonumber(entry[2]) + gate.span - now
          outcome = 'throttled'
          break
        end
      else
        -- The lease is 'expires_ms|agent'; expiry is judged on the decision clock, PX only cleans up.
        local lease = redis.call('GET', gate.key)
        if lease then
          local sep = string.find(lease, '|', 1, true)
          local expires = tonumber(string.sub(lease, 1, sep - 1))
          local owner = string.sub(lease, sep + 1)
          if expires > now and (gate.scope == 'any' or owner ~= agent) then
            failed = g
            retry = expires - now
            outcome = 'deduplicated'
            break
          end
        end
      end
    end
    -- Sub-agents an agent starts itself are counted: a run caps how many are live at once, and how deep
    -- they nest. Exact like the gates: counted and added in this one script.
    if failed == 0 and spawn and spawn ~= '' then
      local max_depth = tonumber(run[9] or '') or tonumber(default_max_depth)
      local max_live = tonumber(run[8] or '') or tonumber(default_max_live)
      local live = redis.call('ZCOUNT', live_agents_key, '(' .. now, '+inf')
      if tonumber(depth) + 1 > max_depth then
        failed = -5
        outcome = 'suppressed'
        rule = 'agent-depth'
        reason = 'sub-agents may nest at most ' .. max_depth .. ' deep: this agent is a sub-agent already'
      elseif live >= max_live then
        failed = -5
        outcome = 'suppressed'
        rule = 'agent-cap'
        reason = live .. ' sub-agents of this run are live already (the cap is ' .. max_live .. ')'
      end
    end
    local q_max = tonumber(run[3] or '')
    local q_start, q_used, q_window = 0, 0, 0
    if failed == 0 and q_max then
      q_window = tonumber(run[4])
      q_start = tonumber(run[6])
      q_used = tonumber(run[7] or '0')
      if now >= q_start + q_window then
        -- A new quota window: windows are aligned to the run's start.
        q_start = q_start + math.floor((now - q_start) / q_window) * q_window
        q_used = 0
      end
      if q_used >= q_max then
        if run[5] == 'warn' then
          quota_warn = 1
        else
          failed = -1
          retry = q_start + q_window - now
          outcome = 'quota_exceeded'
          rule = 'run-quota'
          reason = 'the run used its quota of ' .. q_max .. ' actions'
        end
      end
    end
    if failed > 0 then
      rule = gates[failed].name
      reason = gates[failed].reason
    end
    if failed == 0 then
      outcome = outcome_if_allowed
      if not dry then
        for g = 1, n_gates do
          local gate = gates[g]
          if gate.kind == 't' then
            redis.call('ZADD', gate.key, now, gate.member)
            redis.call('ZREMRANGEBYSCORE', gate.key, '-inf', now - gate.span)
            redis.call('PEXPIRE', gate.key, gate.span)
          else
            redis.call('SET', gate.key, (now + gate.span) .. '|' .. agent, 'PX', gate.span + 60000)
          end
        end
        if q_max then
          redis.call('HSET', run_key, 'q_start', q_start, 'q_used', q_used + 1)
        end
        if approved_key then
          redis.call('HSET', approved_key, 'status', 'used', 'used_ms', now)
        end
        if spawn and spawn ~= '' then
          local lease = tonumber(spawn_lease_ms)
          redis.call('ZREMRANGEBYSCORE', live_agents_key, '-inf', now)
          redis.call('ZADD', live_agents_key, now + lease, spawn)
          redis.call('PEXPIRE', live_agents_key, lease)
        end
      end
    end
  end
end

-- What an allowed call writes is remembered for the run: a program an agent wrote is judged by its content
-- when a later command runs it, and one it downloaded as downloaded code (gateway/dispatch.py). A file
-- written again by other means is no longer a download.
if not dry and writes and writes ~= '' and (outcome == 'executed' or outcome == 'rerouted') then
  local retention = tonumber(written_retention_ms)
  local downloaded = {}
  for path in string.gmatch(fetched or '', '[^\n]+') do downloaded[path] = true end
  for path in string.gmatch(writes, '[^\n]+') do
    redis.call('SADD', written_key, path)
    if downloaded[path] then
      redis.call('SADD', fetched_key, path)
    else
      redis.call('SREM', fetched_key, path)
    end
  end
  redis.call('PEXPIRE', written_key, retention)
  redis.call('PEXPIRE', fetched_key, retention)  -- no-op while the run downloaded nothing
end

if not dry then
  redis.call('XADD', audit_key, '*', 'ts', now, 'outcome', outcome, 'rule', rule, 'reason', reason,
             'retry_after_ms', retry, 'approval_id', approval_id, 'decided_by', decided_by,
             'decision_reason', decision_reason, 'shown_sha256', shown_sha256, 'quota_warned', quota_warn,
             'call', call_json)
  redis.call('HINCRBY', stats_key, 'dispatched', 1)
  redis.call('HINCRBY', stats_key, outcome, 1)
  if quota_warn == 1 then redis.call('HINCRBY', stats_key, 'quota_warned', 1) end
end
return {outcome, failed, retry, approval_id, rule, reason, quota_warn, now}
