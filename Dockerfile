# syntax=docker/dockerfile:1
# Nyckel: the server runs compiled (dist/, `npm run build:server`); the operator scripts
# (scripts/client.ts, keys.ts, operator.ts) run from the TypeScript sources, so the image holds
# those too, with migrations/, seeds/ and the built portal.

# --- build: the portal (React, Vite) and the server (tsc) -------------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY portal ./portal
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
RUN npm run build

# --- runtime ----------------------------------------------------------------------------------
FROM node:24-bookworm-slim AS runtime
# MALLOC_MMAP_THRESHOLD_: argon2's 19 MiB buffers go back to the OS after each hash instead of
# staying in glibc's heap. V8's flags are on the command line (CMD, src/config/node-flags.ts).
# HOST: every interface of the container, whatever NODE_ENV, or a published port reaches nothing
# (outside production Nyckel binds 127.0.0.1 by default).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=1048576 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY src ./src
COPY migrations ./migrations
COPY seeds ./seeds
COPY scripts ./scripts
COPY --from=build /app/dist ./dist
COPY --from=build /app/portal/dist ./portal/dist
# The code stays root-owned and read-only for the server; only DATA_DIR (the mail outbox when
# SMTP_URL is empty) is writable.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations run on start; SIGTERM drains requests in flight before exiting.
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "dist/src/main.js"]
