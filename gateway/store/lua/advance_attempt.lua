-- Make ARGV[2] the current attempt of agent ARGV[1], only if it is newer than the current one.
-- KEYS[1] the run's hash (its status), KEYS[2] the run's attempts hash (agent -> attempt).
-- Returns {'ok', attempt} · {'not_newer', current} · {'cancelled', ''} · {'unknown_run', ''}.
-- One script so that two mints of one attempt (two workers that both think they own the subtask) give
-- exactly one key: the check and the advance cannot interleave.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'unknown_run', ''} end
if status == 'cancelled' then return {'cancelled', ''} end
local current = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= current then return {'not_newer', tostring(current)} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {'ok', ARGV[2]}
