import { afterAll, beforeAll, expect, it } from 'vitest';
import { PAIRING_MAX_TRIES } from '../../../companion/auth/pairing';
import { makeWorld, removeWorld, type World } from '../server/harness';

/*
 * What POST /v1/pair answers a wrong code with, try by try: the count of tries left is said in words that follow
 * it ("1 try left", not "1 tries left"), and the try that voids the code says so and what to run.
 */
let world: World;
beforeAll(() => {
  world = makeWorld();
});
afterAll(async () => {
  await world.close();
  removeWorld(world);
});

it('each wrong code says how many tries are left, the last one in the singular, then that the code is void', async () => {
  const { code } = world.companion.pairing.newCode();
  const wrong = code === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
  const messages: string[] = [];
  for (let i = 0; i < PAIRING_MAX_TRIES; i++) {
    const res = await world.post('/v1/pair', { code: wrong }, null);
    expect(res.status).toBe(403);
    messages.push(((await res.json()) as { error: { message: string } }).error.message);
  }
  expect(messages).toEqual([
    'wrong pairing code; 4 tries left',
    'wrong pairing code; 3 tries left',
    'wrong pairing code; 2 tries left',
    'wrong pairing code; 1 try left',
    'too many wrong codes; this code is void now; run `npx chatbridge pair` in the chatbridge folder for a new one',
  ]);
});
