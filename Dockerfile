# syntax=docker/dockerfile:1
# One multi-target Dockerfile for the eight processes: `docker build --target <app> -t api-platform/<app> .`
# with <app> one of users, items, auth, posts, events, deliveries, gateway, rest. Each final image holds the base image's Node 24,
# the production node_modules (the esbuild bundle keeps packages external) and that app's bundle only; it runs
# as the unprivileged `node` user with NODE_ENV=production (JWT_SECRET is then required) and HOST=0.0.0.0.
ARG NODE_IMAGE=node:24-bookworm-slim

# Production dependencies only (no dev tools, no sources). No production dependency needs an install script.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# The build: every dev dependency, the sources, then `node tools/build.mjs` (bundles + composed supergraph).
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.base.json codegen.ts ./
COPY types ./types
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps
COPY bench ./bench
COPY schema ./schema
RUN node tools/build.mjs

# What every app image shares. Files stay owned by root and read-only to the `node` user (uid 1000), so the
# container also runs with a read-only root filesystem: the processes write nothing but logs to stdout.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
USER node
# Readiness (own dependencies reachable) on the port the app listens on; runService answers /readyz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM

FROM runtime AS users
COPY --from=build /src/dist/apps/users ./dist/apps/users
ENV PORT=4001
EXPOSE 4001
CMD ["node", "--enable-source-maps", "dist/apps/users/main.js"]

FROM runtime AS items
COPY --from=build /src/dist/apps/items ./dist/apps/items
ENV PORT=4002
EXPOSE 4002
CMD ["node", "--enable-source-maps", "dist/apps/items/main.js"]

FROM runtime AS auth
COPY --from=build /src/dist/apps/auth ./dist/apps/auth
ENV PORT=4003
EXPOSE 4003
CMD ["node", "--enable-source-maps", "dist/apps/auth/main.js"]

FROM runtime AS posts
COPY --from=build /src/dist/apps/posts ./dist/apps/posts
ENV PORT=4004
EXPOSE 4004
CMD ["node", "--enable-source-maps", "dist/apps/posts/main.js"]

FROM runtime AS events
COPY --from=build /src/dist/apps/events ./dist/apps/events
ENV PORT=4005
EXPOSE 4005
CMD ["node", "--enable-source-maps", "dist/apps/events/main.js"]

# The webhook delivery worker: PORT serves health only.
FROM runtime AS deliveries
COPY --from=build /src/dist/apps/deliveries ./dist/apps/deliveries
ENV PORT=4006
EXPOSE 4006
CMD ["node", "--enable-source-maps", "dist/apps/deliveries/main.js"]

# dist/apps/gateway also holds supergraph.graphql, which the gateway reads from beside its bundle.
FROM runtime AS gateway
COPY --from=build /src/dist/apps/gateway ./dist/apps/gateway
ENV PORT=4000
EXPOSE 4000
CMD ["node", "--enable-source-maps", "dist/apps/gateway/main.js"]

# dist/apps/rest holds the supergraph too, for GATEWAY_MODE=embedded.
FROM runtime AS rest
COPY --from=build /src/dist/apps/rest ./dist/apps/rest
ENV PORT=3000
EXPOSE 3000
CMD ["node", "--enable-source-maps", "dist/apps/rest/main.js"]
