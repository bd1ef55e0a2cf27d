# syntax=docker/dockerfile:1
# One image for every role of the service:
#   ROLE=api     HTTP only (the default CMD, node dist/main.js)
#   ROLE=worker  the generation processors, no HTTP listener
#   node dist/cli.js migration:run | storage:init | org:create ... (admin CLI, one-shot)
# glibc (Debian bookworm), not Alpine: sharp and argon2 ship prebuilt glibc binaries that `npm ci` installs.
# The base is pinned to an exact Node 22 LTS release; bump it with .nvmrc and `engines`.
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NODE_ENV=development
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    ROLE=api \
    PORT=3000 \
    DB_MIGRATIONS_RUN=false \
    STORAGE_DIR=/app/var/storage
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The fs storage driver writes under /app/var: the only directory the service user may write to.
RUN mkdir -p /app/var/storage && chown -R 1000:1000 /app/var
# uid 1000 is the base image's unprivileged `node` user (numeric, so Kubernetes' runAsNonRoot can verify it).
USER 1000:1000
EXPOSE 3000
# Readiness of the HTTP roles (PostgreSQL, Redis and storage answer). A worker has no HTTP listener:
# compose and the Kubernetes manifests switch this check off for it.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
