-- resolve_approval.lua: approve or reject a pending approval, atomically.
--
-- A pending approval past its expiry cannot be resolved any more. Approving opens a use window of
-- the approval's own timeout, counted from the decision. Waiters are woken through pub/sub.
--
-- KEYS: 1 approval hash
-- ARGV: 1 now override (ms, '' = Redis TIME)  2 approved|rejected  3 by  4 reason  5 notify channel
--       6 SHA-256 of what the person was shown ('' = the admin key decided without a view)
-- Returns: {'ok', status} | {'not_found', ''} | {'conflict', current status}

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local a = redis.call('HMGET', KEYS[1], 'status', 'expires_ms', 'timeout_ms', 'id')
if not a[1] then return {'not_found', ''} end
if a[1] ~= 'pending' then return {'conflict', a[1]} end
if now >= tonumber(a[2]) then return {'conflict', 'expired'} end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'resolved_ms', now, 'resolved_by', ARGV[3],
           'resolution_reason', ARGV[4], 'use_by_ms', now + tonumber(a[3]), 'shown_sha256', ARGV[6])
redis.call('PUBLISH', ARGV[5], 'approval:' .. a[4])
return {'ok', ARGV[2]}
