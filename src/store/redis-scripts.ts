/**
 * The Lua scripts behind RedisStore's atomic operations (src/store/redis-store.ts defines them on
 * its client), each one command for Redis, so atomic like MULTI/EXEC at the cost of one.
 */
import type { Redis } from 'ioredis';

/**
 * An index set's TTL rule, as Lua: the set lives at least as long as its newest member. A new set
 * (TTL -1 right after its first SADD) gets the member's TTL; an existing one is only ever
 * lengthened. Reading the TTL first costs less than EXPIRE NX and EXPIRE GT both: most members
 * find the set already living long enough (an access token in its grant's set, which the refresh
 * token written with it has lengthened), and then nothing is written.
 */
const lengthenSet = (set: string, ttl: string) => `if redis.call('TTL', ${set}) < ${ttl} then redis.call('EXPIRE', ${set}, ${ttl}) end`;

/**
 * setIndexed in one atomic step (KEYS[1] the value's key, KEYS[2..] the index sets; ARGV the value,
 * the TTL and the unprefixed key, which is what the sets hold). Index sets are written before the
 * value, each with the rule above. Returns the largest set's size after the write.
 */
export const setIndexedLua = `
local ttl = tonumber(ARGV[2])
local largest = 0
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], ARGV[3])
  ${lengthenSet('KEYS[i]', 'ttl')}
  largest = math.max(largest, redis.call('SCARD', KEYS[i]))
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
return largest
`;

/**
 * claimAndWrite in one atomic step. ARGV[1] is '1' when there is a claim (its key next in KEYS,
 * value ARGV[2], TTL ARGV[3]); ARGV[4] is '1' when a key must still exist (next in KEYS). Then, per
 * write, four ARGV (value, TTL, unprefixed key, number of index sets) and its key followed by its
 * sets in KEYS. Index sets follow the rule above. Returns 1 (claimed and written), 0 (claim lost)
 * or 2 (the required key is gone); on 0 and 2 nothing was written.
 */
export const claimAndWriteLua = `
local k = 1
local claim = ARGV[1] == '1'
if claim then k = 2 end
if ARGV[4] == '1' then
  if redis.call('EXISTS', KEYS[k]) == 0 then return 2 end
  k = k + 1
end
if claim and not redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]), 'NX') then return 0 end
for a = 5, #ARGV, 4 do
  local ttl = tonumber(ARGV[a + 1])
  local sets = tonumber(ARGV[a + 3])
  for i = 1, sets do
    redis.call('SADD', KEYS[k + i], ARGV[a + 2])
    ${lengthenSet('KEYS[k + i]', 'ttl')}
  end
  redis.call('SET', KEYS[k], ARGV[a], 'EX', ttl)
  k = k + 1 + sets
end
return 1
`;

/**
 * getWithReference in one atomic step (KEYS the value's key and its companions; ARGV the JSON
 * field and the full key prefix of the referenced record). The referenced key is computed inside
 * the script, which a single Redis server allows; Redis Cluster would need it to share a hash slot.
 * A missing key reads as false (nil in the reply).
 */
export const getWithReferenceLua = `
local values = {}
for i = 1, #KEYS do
  values[i] = redis.call('GET', KEYS[i])
end
local referenced = false
if values[1] then
  local ok, decoded = pcall(cjson.decode, values[1])
  if ok and type(decoded) == 'table' and type(decoded[ARGV[1]]) == 'string' then
    referenced = redis.call('GET', ARGV[2] .. decoded[ARGV[1]])
  end
end
values[#KEYS + 1] = referenced
return values
`;

/**
 * incr (KEYS[1]; ARGV the TTL and the amount) and sadd (KEYS[1]; ARGV the TTL and the member) as
 * scripts: atomic like MULTI/EXEC, but one command each, so they share the socket write of
 * whatever else was issued in the same loop iteration (#batchWrites) instead of costing a
 * transaction of their own.
 */
export const incrLua = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[1], 'NX')
return count
`;
export const saddLua = `
local ttl = tonumber(ARGV[1])
redis.call('SADD', KEYS[1], ARGV[2])
${lengthenSet('KEYS[1]', 'ttl')}
return 1
`;

/** replaceIfUnchanged (KEYS[1]; ARGV the expected value, the new value and the TTL). */
export const replaceIfUnchangedLua = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
`;

export type ScriptedRedis = Redis & {
  nyckelIncr(keyCount: number, ...args: (string | number)[]): Promise<number>;
  nyckelSadd(keyCount: number, ...args: (string | number)[]): Promise<number>;
  nyckelSetIndexed(keyCount: number, ...args: (string | number)[]): Promise<number>;
  nyckelGetWithReference(keyCount: number, ...args: string[]): Promise<(string | null)[]>;
  nyckelClaimAndWrite(keyCount: number, ...args: (string | number)[]): Promise<number>;
  nyckelReplaceIfUnchanged(keyCount: number, ...args: (string | number)[]): Promise<number>;
};
