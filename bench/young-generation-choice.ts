import '../src/young-generation';
import { setFlagsFromString } from 'node:v8';

/**
 * The router child's young generation, chosen before anything else loads (the boot is where V8
 * grows it): the router's fixed one (src/young-generation.ts), or V8's own, which doubles up to
 * two 16 MiB semi-spaces, with BENCH_YOUNG_GENERATION=v8-default (bench/footprint.ts).
 */
if (process.env.BENCH_YOUNG_GENERATION === 'v8-default') setFlagsFromString('--semi-space-growth-factor=2');
