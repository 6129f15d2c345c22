# syntax=docker/dockerfile:1
# One image for every part of the gateway; the command picks which: api (default) | worker | sim.
#   docker build -t mediagate .
#   docker run mediagate worker
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: compile TypeScript and prebuild the workflow bundle (needs the dev dependencies) ---------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install` with the lock file: `npm ci` refuses it (see README, Quick start).
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY core core
COPY platforms platforms
COPY pricing pricing
COPY results results
COPY ledger ledger
COPY keys keys
COPY capacity capacity
COPY tasks tasks
COPY operations operations
COPY webhooks webhooks
COPY workflows workflows
COPY activities activities
COPY worker worker
COPY api api
COPY sim sim
COPY console console
COPY scripts scripts
# `npm run build` also builds the operator's console (Vite) into dist/console, which the API serves at /console.
# tsc does not copy the simulator's media files: they go next to the compiled dist/sim/media.js.
RUN npm run build && cp -r sim/assets dist/sim/assets

# --- deps: production dependencies only ---------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The image's Node is the one that runs it: the Node binary the project pins for machines with another Node
# (package.json's optionalDependencies node-linux-*) is dropped (about 120 MB).
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force \
 && rm -rf node_modules/node-linux-* node_modules/.bin/node

# --- runtime: compiled code, production node_modules, non-root -------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY scripts/docker-entrypoint.sh /usr/local/bin/mediagate
# Files stay root-owned and read-only to the process. The one writable place is /var/lib/mediagate (a volume in
# compose): the simulator's jobs, the embedded result store.
RUN mkdir -p /var/lib/mediagate && chown node:node /var/lib/mediagate
USER node
# api 8080; worker metrics 9464 (gateway) and 9465 (Temporal SDK); sim 8090
EXPOSE 8080 9464 9465 8090
ENTRYPOINT ["mediagate"]
CMD ["api"]
