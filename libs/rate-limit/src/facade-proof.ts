/**
 * The facade already spent the caller's budget, so the gateway must not count its calls again (nor lump every
 * anonymous REST client into the facade's one IP). The facade proves itself with an HMAC derived from the shared
 * JWT secret (the ring's current one; the gateway accepts a proof of any accepted one, so facade and gateway pods
 * rolled at different moments of a rotation still recognise each other); the gateway checks it in constant time. The
 * value grants nothing but that exemption and the facade's start-up dry runs (x-warm-up, ADR 0007), which reach no
 * subgraph and return no data.
 */
import { createHmac } from 'node:crypto';
import { acceptsValue, mapRing, ringOf, type Secrets } from '@platform/auth';

export const FACADE_PROOF_HEADER = 'x-facade-proof';

const proofOf = (jwtSecret: string): Buffer =>
  createHmac('sha256', jwtSecret).update('platform/rate-limit-exemption/rest-facade').digest();

/** The header the facade sends on every gateway call. */
export const facadeProofHeaders = (jwtSecret: Secrets): Record<string, string> => ({
  [FACADE_PROOF_HEADER]: proofOf(ringOf(jwtSecret).current).toString('base64url'),
});

/** A checker for the gateway: true when the presented header carries the facade's proof. */
export function facadeProofChecker(jwtSecret: Secrets): (presented: string | string[] | undefined) => boolean {
  const proofs = mapRing(ringOf(jwtSecret), proofOf);
  return (presented) => {
    if (typeof presented !== 'string' || presented === '') return false;
    return acceptsValue(proofs, Buffer.from(presented, 'base64url'));
  };
}
