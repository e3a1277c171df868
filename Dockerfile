# vts in a container (docs/deployment.md):
#   docker build -t vts .
#   docker run -d --name vts --init -v vts-data:/data -p 6867:6867 -p 6868:6868 -p 1883:1883 vts
# Options are VTS_* environment variables (README "Configuration"), e.g. -e VTS_LOG_LEVEL=debug;
# other vts commands run with the same image:
#   docker run --rm -it -v vts-data:/data vts user add demo --password -

# Production dependencies. better-sqlite3 is a native addon: its install script fetches a prebuilt
# binary, or compiles one with python3, make and g++ when none fits. Scripts are skipped at
# `npm ci` (the project's own `prepare` would build before the sources are here) and run for
# better-sqlite3 alone (ssh2 and cpu-features do without theirs, as on a developer's machine).
FROM node:20-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/vts
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts \
 && npm rebuild better-sqlite3

# The build: the server (tsc into dist/) and the web dashboard (Vite into dist/web). Compiling
# needs no native addon, so the scripts are skipped here too.
FROM node:20-bookworm-slim AS build
WORKDIR /opt/vts
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build

# What runs: node, the production node_modules, dist/ and package.json (read for the version).
FROM node:20-bookworm-slim AS runtime
ENV VTS_DATA_DIR=/data
WORKDIR /opt/vts
RUN groupadd --system --gid 10001 vts \
 && useradd --system --uid 10001 --gid vts --home-dir /data --no-create-home --shell /usr/sbin/nologin vts \
 && mkdir /data \
 && chown vts:vts /data \
 && chmod 0700 /data
COPY --from=deps /opt/vts/node_modules ./node_modules
COPY --from=build /opt/vts/dist ./dist
COPY package.json ./
USER vts
# The SQLite database (vts.sqlite) when no VTS_DATABASE is given. A new named volume takes the
# folder's owner (vts) from the image.
VOLUME ["/data"]
# MP 6867, MP over TLS 6870, HTTP 6868, HTTPS 6869, MQTT 1883, MQTT over TLS 8883 (README "Ports";
# the TLS listeners start only with VTS_TLS_CERT and VTS_TLS_KEY; MQTT over WebSocket is off
# unless VTS_MQTT_WS_PORT names a port).
EXPOSE 6867 6870 6868 6869 1883 8883
# GET /health on the HTTP port (VTS_HTTP_PORT when set). Slim images have no curl: node's fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.VTS_HTTP_PORT || 6868) + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# vts stops gracefully on SIGTERM (commits buffered writes, exits within 5 s).
STOPSIGNAL SIGTERM
# `npm start` without npm: node dist/cli/main.js serve
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
