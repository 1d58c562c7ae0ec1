/**
 * Moves a proposal from one of the allowed states to another in one step, so that replicas racing on the same
 * proposal (a submit, a tracker, a sweeper) cannot both win.
 *
 * KEYS: 1 the proposal's hash, 2 the live set, 3 the tracking work list, 4 the hash -> id key.
 * ARGV: 1 id, 2 new status, 3 allowed current statuses (space separated), 4 now (ms), 5 how long a terminal proposal
 * stays readable (ms), 6 tracking: '' leave as is, 'remove', or the next check time (ms), 7.. field/value pairs.
 * Returns {1, previous status} when applied, {0, current status or ''} when not.
 */
export const TRANSITION_SCRIPT = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {0, ''} end
local allowed = false
for candidate in string.gmatch(ARGV[3], '%S+') do
  if candidate == status then allowed = true end
end
if not allowed then return {0, status} end
local fields = {'status', ARGV[2], 'updatedAt', ARGV[4]}
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
if ARGV[2] == 'confirmed' or ARGV[2] == 'failed' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[4], ARGV[5])
elseif ARGV[6] == 'remove' then
  redis.call('ZREM', KEYS[3], ARGV[1])
elseif ARGV[6] ~= '' then
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
end
return {1, status}
`;

/**
 * Gives a proposal another owner if it still has the one given: its `accountId` field and its entry in the owner's
 * per-wallet list move together (ADR 015: proposals built before accounts held the key id).
 *
 * KEYS: 1 the proposal's hash, 2 the old owner's list for the wallet, 3 the new owner's list for the wallet.
 * ARGV: 1 id, 2 old owner, 3 new owner, 4 createdAt (the list's score).
 * Returns 1 when moved, 0 when the proposal is gone or has another owner.
 */
export const REASSIGN_SCRIPT = `
if redis.call('HGET', KEYS[1], 'accountId') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'accountId', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
local keep = redis.call('PTTL', KEYS[1])
if keep > 0 and redis.call('PTTL', KEYS[3]) < keep then redis.call('PEXPIRE', KEYS[3], keep) end
return 1
`;
