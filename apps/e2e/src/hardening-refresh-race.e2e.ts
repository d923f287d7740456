/**
 * Refresh tokens are redeemed exactly once under concurrency on the real stack (FerretDB): of many concurrent
 * redemptions of one token exactly one wins, every loser is reuse and revokes the family, and no token of that family
 * (the winner's new one included) works afterwards. Logout and password reset racing a rotation also end the family.
 */
import { http, type HttpResponse } from '@platform/testing';
import { login, register, rest, type Account } from './test/identity-support';

const CONCURRENT = 50;
const ROUNDS = 5;

const redeem = (refreshToken: string): Promise<HttpResponse> =>
  http.post(rest('/auth/refresh'), { json: { refresh_token: refreshToken } });

/** Starts every redemption before awaiting any, so they reach auth together. */
const race = (refreshToken: string, count: number): Promise<HttpResponse[]> =>
  Promise.all(Array.from({ length: count }, () => redeem(refreshToken)));

describe('refresh-token redemption under concurrency', () => {
  let user: Account;

  beforeAll(async () => {
    user = await register('race');
  });

  it(`when ${CONCURRENT} redemptions of one refresh token race (${ROUNDS} rounds), then exactly one 200, the rest 401 and the whole family is dead`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const first = await login(user.username, user.password);
      // The raced token is a rotated one, so the family also holds an older, already redeemed token.
      const second = await redeem(first.refresh_token);
      expect(second.status).toBe(200);
      const raced: string = second.body.refresh_token;

      const responses = await race(raced, CONCURRENT);
      const statuses = responses.map((r) => r.status);
      const winners = responses.filter((r) => r.status === 200);
      expect({ round, winners: winners.length, statuses }).toEqual({
        round,
        winners: 1,
        statuses: expect.arrayContaining([200, 401]),
      });
      for (const loser of responses.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(401);
        expect(loser.body).toEqual({ detail: 'Invalid refresh token' });
      }

      const issued: string = winners[0]?.body.refresh_token;
      expect(typeof issued).toBe('string');
      for (const token of [issued, raced, first.refresh_token]) {
        const after = await redeem(token);
        expect({ round, token: token === issued ? 'winner' : 'older', status: after.status }).toEqual({
          round,
          token: token === issued ? 'winner' : 'older',
          status: 401,
        });
        expect(after.body).toEqual({ detail: 'Invalid refresh token' });
      }
    }
    // Other sessions of the user are untouched: a new login rotates normally.
    const fresh = await login(user.username, user.password);
    expect((await redeem(fresh.refresh_token)).status).toBe(200);
  });

  it('when a logout races rotations of the same session, then no token of the family works afterwards', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const tokens = await login(user.username, user.password);
      const [rotations, out] = await Promise.all([
        race(tokens.refresh_token, 10),
        http.post(rest('/auth/logout'), { json: { refresh_token: tokens.refresh_token } }),
      ]);
      expect(out.status).toBe(204);
      expect(rotations.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      for (const response of rotations) {
        if (response.status !== 200) continue;
        expect((await redeem(response.body.refresh_token as string)).status).toBe(401);
      }
    }
  });

  it('when a password reset races rotations, then no refresh token issued before the reset works afterwards', async () => {
    const member = await register('rrst');
    let password = member.password;
    for (let round = 0; round < ROUNDS; round += 1) {
      const tokens = await login(member.username, password);
      const next = `pw-race-${round}-${member.username}`;
      const [rotations, reset] = await Promise.all([
        race(tokens.refresh_token, 10),
        http.post(rest(`/users/${member.id}/reset-password`), {
          token: tokens.access_token,
          json: { current_password: password, new_password: next },
        }),
      ]);
      expect(reset.status).toBe(200);
      password = next;
      for (const response of rotations) {
        if (response.status !== 200) continue;
        expect((await redeem(response.body.refresh_token as string)).status).toBe(401);
      }
    }
  });
});
