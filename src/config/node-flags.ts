/**
 * V8 flags Nyckel runs with in production: `npm start`, the Docker image (NODE_OPTIONS) and
 * docker-compose.yml carry them, and test/foundation/node-flags.test.ts keeps those in step.
 *
 * `--max-semi-space-size=8` (MiB): V8 otherwise grows its young generation to 32 MiB per
 * semi-space under load and keeps it, so the token endpoint, with a ~50 MB live heap, peaked at
 * 313–343 MB RSS (bench/tokens.bench.ts). With 8 MiB it peaks at ~230 MB for ~7% fewer grants per
 * second; with 4 MiB at ~212 MB, but collecting garbage that often cost ~15% of the throughput.
 */
export const productionNodeFlags = ['--max-semi-space-size=8'] as const;
