/**
 * V8 flags Nyckel runs with in production: `npm start` and the Docker image's command carry them,
 * and test/foundation/node-flags.test.ts keeps those in step. They are command-line flags, not
 * NODE_OPTIONS: Node refuses `--heap-growing-percent` there.
 *
 * - `--max-semi-space-size=8` (MiB): V8 otherwise grows its young generation to 32 MiB per
 *   semi-space under load and keeps it, so the token endpoint, with a ~50 MB live heap, peaked at
 *   313–343 MB RSS (bench/tokens.bench.ts). With 8 MiB it peaks ~90 MB lower for ~7% fewer grants
 *   per second; with 4 MiB lower still, but collecting garbage that often cost ~15% of throughput.
 * - `--heap-growing-percent=50`: after a full collection the old generation may grow to 1.5 times
 *   what survived, where V8's own choice is up to 4 times on a heap this small. Peak RSS under the
 *   token bench fell from ~225–250 MB to ~165–190 MB with no throughput lost that the bench could
 *   tell from its run-to-run noise.
 */
export const productionNodeFlags = ['--max-semi-space-size=8', '--heap-growing-percent=50'] as const;
