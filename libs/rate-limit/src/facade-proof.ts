/**
 * The facade already spent the caller's budget, so the gateway must not count its calls again (nor lump every
 * anonymous REST client into the facade's one IP). The facade proves itself with an HMAC derived from the shared
 * JWT secret; the gateway checks it in constant time. The value grants nothing but that exemption and
 * the facade's start-up dry runs (x-warm-up, ADR 0007), which reach no subgraph and return no data.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const FACADE_PROOF_HEADER = 'x-facade-proof';

const proofOf = (jwtSecret: string): Buffer =>
  createHmac('sha256', jwtSecret).update('platform/rate-limit-exemption/rest-facade').digest();

/** The header the facade sends on every gateway call. */
export const facadeProofHeaders = (jwtSecret: string): Record<string, string> => ({
  [FACADE_PROOF_HEADER]: proofOf(jwtSecret).toString('base64url'),
});

/** A checker for the gateway: true when the presented header carries the facade's proof. */
export function facadeProofChecker(jwtSecret: string): (presented: string | string[] | undefined) => boolean {
  const proof = proofOf(jwtSecret);
  return (presented) => {
    if (typeof presented !== 'string' || presented === '') return false;
    const given = Buffer.from(presented, 'base64url');
    return given.length === proof.length && timingSafeEqual(given, proof);
  };
}
