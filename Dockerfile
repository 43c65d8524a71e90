# rwx container image: build with the full toolchain, run with production dependencies only, as a non-root user.
# The Kubernetes API simulator (packages/kube-sim) is a test tool: never copied here, so `rwx demo` and `rwx sim`
# say in one line that it is not shipped.
#   docker build -t rwx:0.1.0 --build-arg RWX_COMMIT="$(git rev-parse HEAD)" .
#   docker run --rm rwx:0.1.0 --help
# Checked without a Docker engine by test/deploy/dockerfile.test.ts (lint, COPY sources, the start command).

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so a source change does not reinstall them. --ignore-scripts: `prepare` would build
# before the sources are here; the build runs explicitly below.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build:bot

FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production
# The commit `rwx version` and rwx_build_info report (.git is not in the image); "unknown" when not given.
ARG RWX_COMMIT=""
ENV RWX_COMMIT=${RWX_COMMIT}
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY scenarios ./scenarios
# Numeric, so Kubernetes can verify runAsNonRoot without looking the name up; matches deploy/base/deployment.yaml.
USER 10001:10001
EXPOSE 3000
# A young generation of up to 64 MB per semi-space (V8's default is 16): a start or relist parses every list page
# into objects of which the projected part lives on, and with small semi-spaces each page's survivors are copied
# over and over. At 150k pods this cuts the restart's wall time by about 8% (bench/recovery.ts runs the restart
# with these flags), for at most 96 MB more memory, taken only when allocation is that heavy.
ENTRYPOINT ["node", "--max-semi-space-size=64", "bin/rwx.js"]
CMD ["serve"]
