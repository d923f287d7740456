/**
 * Safe egress for webhook deliveries (ADR 0025): every address a host resolves to is classified (@platform/webhooks
 * addressClass) and the socket connects to the checked address itself (its `lookup`), so DNS rebinding gains nothing.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressClass, canonicalAddress, isLocalhostName } from '@platform/webhooks';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address (tests give one of their own; production asks the system resolver). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error
        ? reject(error)
        : resolve(addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))),
    ),
  );

export interface EgressPolicy {
  /** Development (`npm start`): loopback endpoints are allowed, so a developer can receive on localhost. */
  allowLoopback: boolean;
  /** WEBHOOK_EGRESS=loopback: loopback only (allowLoopback implied), and no name looked up but `localhost`. */
  loopbackOnly?: boolean;
}

/** The addresses `localhost` (and `*.localhost`) names, answered without a lookup (RFC 6761 section 6.3). */
const LOCALHOST: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * What the endpoint's owner reads in its delivery log for a refused address and for a name that does not resolve
 * alike: neither the address nor its range nor whether the name exists (internal DNS is not the owner's to map).
 */
export const NOT_PUBLIC = "refused: the endpoint's host does not resolve to a public address";
const LOOPBACK_ONLY = 'refused: egress is loopback only (WEBHOOK_EGRESS=loopback)';

/** The check refused an address: `message` (the address and its range) is for the worker's log only. */
export class EgressRefused extends Error {
  constructor(
    message: string,
    /** What the owner may read. */
    readonly ownerMessage = NOT_PUBLIC,
  ) {
    super(message);
    this.name = 'EgressRefused';
  }
}

/** Throws EgressRefused unless the address may be connected to under the policy. */
export function checkAddress(address: string, policy: EgressPolicy): void {
  const range = addressClass(address);
  if (range === 'loopback' && (policy.allowLoopback || policy.loopbackOnly)) return;
  if (range === 'unicast' && !policy.loopbackOnly) return;
  throw new EgressRefused(
    range === 'unicast'
      ? `refused: ${address} is public: egress is loopback only (WEBHOOK_EGRESS=loopback)`
      : `refused: ${address} (${range}) is not a public address`,
    policy.loopbackOnly ? LOOPBACK_ONLY : NOT_PUBLIC,
  );
}

/** Loopback-only egress looks no name up; the owner wrote the name, so the message may say it. */
const notLookedUp = (hostname: string): EgressRefused => {
  const message = `refused: ${hostname} is not looked up: egress is loopback only (WEBHOOK_EGRESS=loopback)`;
  return new EgressRefused(message, message);
};

/**
 * The socket's `lookup`: resolves with `resolver`, refuses the host when any of its addresses is refused (a name
 * that also points inside is not an endpoint to trust), and hands the socket the first address it checked.
 */
export function checkedLookup(resolver: Resolver, policy: EgressPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const resolved = policy.loopbackOnly
      ? isLocalhostName(hostname)
        ? Promise.resolve(LOCALHOST)
        : Promise.reject(notLookedUp(hostname))
      : resolver(hostname);
    resolved
      .then((addresses) => {
        if (addresses.length === 0)
          throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        for (const { address } of addresses) checkAddress(address, policy);
        // The socket gets the address in the form it was judged in.
        const { address, family } = canonicalAddress(addresses[0]!.address)!;
        const chosen = { address, family };
        if (options?.all) callback(null, [chosen]);
        else callback(null, chosen.address, chosen.family);
      })
      .catch((error: unknown) => callback(error));
  }) as LookupFunction;
}

/** An IP literal in a URL is never looked up by the socket: it is checked here, before connecting. */
export function checkLiteralHost(hostname: string, policy: EgressPolicy): void {
  if (canonicalAddress(hostname)) checkAddress(hostname, policy);
}
