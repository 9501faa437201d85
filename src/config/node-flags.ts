/**
 * V8 flags Nyckel runs with in production: `npm start`, the Docker image (NODE_OPTIONS) and
 * docker-compose.yml carry them, and test/foundation/node-flags.test.ts keeps those in step.
 *
 * `--max-semi-space-size=4` (MiB): V8 otherwise grows its young generation to 16–32 MiB per
 * semi-space under load and keeps it, so a token endpoint with a ~50 MB live heap peaked at
 * ~400 MB RSS; with 4 MiB it peaks at ~175 MB (bench/tokens.bench.ts). Short-lived request
 * garbage is collected a little more often, at no throughput cost we could measure.
 */
export const productionNodeFlags = ['--max-semi-space-size=4'] as const;
