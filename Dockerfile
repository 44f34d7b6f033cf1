# One image for every process of the platform; the container's command picks the service, e.g.
#   docker run IMAGE node services/conversations/dist/main.js
FROM node:20-bookworm-slim AS build
WORKDIR /app
# re2 (moderation patterns, ADR 0037) compiles its bundled sources when no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY . .
RUN npx -y pnpm@10 install --frozen-lockfile \
 && node_modules/.bin/tsc -b \
 && npx -y pnpm@10 install --frozen-lockfile --prod

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
USER node
CMD ["node", "gateway/dist/main.js"]
