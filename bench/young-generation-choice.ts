import { setFlagsFromString } from 'node:v8';

/**
 * The router child's young generation, chosen before anything else loads (the boot is where V8
 * grows it): held while the router boots and given back to V8 once it is ready, as the router does
 * (src/young-generation.ts), or, with BENCH_YOUNG_GENERATION=fixed, kept at its initial two
 * semi-spaces of 1 MiB for the life of the process, what an operator gets with
 * `NODE_OPTIONS=--max-semi-space-size=1` (bench/footprint.ts; README, "Footprint"). Set after
 * start, the growth factor is read each time the young generation would grow, and 1 means it does
 * not.
 */
export const youngGenerationFixed = process.env.BENCH_YOUNG_GENERATION === 'fixed';
if (youngGenerationFixed) setFlagsFromString('--semi-space-growth-factor=1');
