import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at its initial size, two semi-spaces of 1 MiB, for the life of the
 * process. While the modules load, nearly everything allocated survives, so V8 doubles the young
 * generation up to its maximum (two semi-spaces of 16 MiB on 64-bit) within the boot; the
 * scavenges then touch both halves and they stay resident: about 25 MiB of the router's 140 for
 * garbage that a call leaves behind in kilobytes (BENCHMARKS.md, "Footprint", also measures what
 * the smaller young generation costs in GC work).
 *
 * Set by the process itself, as its first import, so every way of starting the router gets it:
 * `npm start`, the `centralmcp-router` bin, the image and the chart. On the command line V8
 * raises a growth factor under 2 to 2; set after start, the flag is read each time the young
 * generation would grow, and 1 means it does not.
 */
setFlagsFromString('--semi-space-growth-factor=1');
