"""Schemathesis hooks for the facade's run (apps/e2e/src/openapi-schemathesis.e2e.ts); each says why it exists.

1. Server-issued values are not generated. `pageToken` (and its alias `cursor`) is an HMAC-signed position bound to
   its collection, filters and sort (docs/interface.md#page-tokens): any value a generator can make is refused (422),
   so "schema-valid but rejected" would be reported for every one. The parameters are dropped from the loaded schema;
   the e2e tests of the listing library follow real `nextPageToken`s instead.
   The same holds for the conditional and retry headers (ADR 0012): `If-Match` and `If-None-Match` carry ETags the
   server issued (any generated tag is a stale one: 412, by design), and an `Idempotency-Key` is valid only relative to
   what the caller sent with it before (the same key with another body is 422, by design; generated keys repeat). They
   are dropped too; rest-safe-retries.e2e.ts exercises them with real ETags and fresh keys.
"""

import schemathesis

SERVER_ISSUED = ("pageToken", "cursor")
HISTORY_DEPENDENT_HEADERS = ("If-Match", "If-None-Match", "Idempotency-Key")


def _drop_server_issued(schema):
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name in SERVER_ISSUED:
                properties.pop(name, None)
        for key in ("anyOf", "oneOf", "allOf"):
            branches = schema.get(key)
            if isinstance(branches, list):
                # `anyOf: [{required: [pageToken]}, ...]` loses the alternatives that require a dropped parameter.
                kept = [b for b in branches if not set(b.get("required", [])) & set(SERVER_ISSUED)] if key == "anyOf" else branches
                schema[key] = kept
                for branch in kept:
                    _drop_server_issued(branch)


@schemathesis.hook
def before_load_schema(context, raw_schema):
    for item in raw_schema.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            parameters = operation.get("parameters", [])
            operation["parameters"] = [
                p for p in parameters if p.get("name") not in SERVER_ISSUED + HISTORY_DEPENDENT_HEADERS
            ]
            for parameter in operation["parameters"]:
                _drop_server_issued(parameter.get("schema"))
