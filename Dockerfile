# syntax=docker/dockerfile:1
# One small production image per service, from this one file (ADR 0051):
#   docker build --build-arg SERVICE=users -t chat-platform-users:0.1.0 .
# SERVICE is gateway, users, conversations, messages, calls, realtime, management, webhooks or notifications. Each
# image holds that service's compiled code and production dependencies only, runs as an unprivileged
# user and reports itself healthy while the service's /readyz answers.

# The current Node.js LTS line (26; Active LTS since October 2026): the line development, the tests and
# the benchmarks run on (.node-version, ADR 0135; package.json's engines). The code is compiled for ES2023.
# Pin a digest (node:26-trixie-slim@sha256:…) in your registry.
ARG NODE_IMAGE=node:26-trixie-slim
ARG PNPM_VERSION=10.34.9

# Everything installed and compiled once; the per-service stages below reuse it from the cache.
FROM ${NODE_IMAGE} AS build
ARG PNPM_VERSION
WORKDIR /src
# re2 (moderation patterns, ADR 0037) compiles its bundled sources when no prebuilt binary is fetched,
# against the headers this Node ships (nothing downloaded for them).
ENV npm_config_nodedir=/usr/local
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ binutils \
 && rm -rf /var/lib/apt/lists/* \
 && npm install -g "pnpm@${PNPM_VERSION}"
COPY . .
RUN pnpm install --frozen-lockfile && pnpm exec tsc -b && node gateway/demo/bundle.mjs

# The chosen service's tree: its workspace packages and their production dependencies, nothing else.
FROM build AS prune
ARG SERVICE=gateway
RUN sh infra/docker/assemble.sh "${SERVICE}" /out

FROM ${NODE_IMAGE}
ARG SERVICE=gateway
LABEL org.opencontainers.image.title="chat-platform-${SERVICE}" \
      org.opencontainers.image.licenses="MIT"
# The package managers are not needed to run the service: less to patch, less to attack.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/bin/npm /usr/local/bin/npx \
      /usr/local/bin/corepack /opt/yarn-* /usr/local/bin/yarn /usr/local/bin/yarnpkg
ENV NODE_ENV=production \
    HOST=0.0.0.0
WORKDIR /app
# Owned by root and not writable by the service's user: the code cannot be changed from inside.
COPY --from=prune /out /app
# The node user of the base image, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
CMD ["node", "/app/main.mjs"]
