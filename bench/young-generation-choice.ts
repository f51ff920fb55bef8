import { setFlagsFromString } from 'node:v8';

/**
 * The router child's young generation, chosen before anything else loads (the boot is where V8
 * grows it): V8's own, which doubles up to two 16 MiB semi-spaces (as the router is built), or,
 * with BENCH_YOUNG_GENERATION=fixed, kept at its initial two semi-spaces of 1 MiB, what an
 * operator gets with `NODE_OPTIONS=--max-semi-space-size=1` (bench/footprint.ts; README,
 * "Footprint"). Set after start, the growth factor is read each time the young generation would
 * grow, and 1 means it does not.
 */
if (process.env.BENCH_YOUNG_GENERATION === 'fixed') setFlagsFromString('--semi-space-growth-factor=1');
