import { setFlagsFromString } from 'node:v8';

/**
 * V8's young generation held at its initial size (two semi-spaces of 1 MiB) while the router
 * boots, and left to V8 once it is ready. While the modules load and the application is built,
 * nearly everything allocated survives, so V8 doubles the young generation up to its maximum (two
 * semi-spaces of 16 MiB on 64-bit) within the boot, and the scavenges that follow touch both
 * halves: 20 to 30 MiB resident in a router that then waits for calls, each of which leaves a few
 * kilobytes of garbage (README, "Footprint").
 *
 * Held, the boot scavenges more often, for the same survivors; released, V8 grows the young
 * generation again as it always does, by the bytes that survive its scavenges, so a router under
 * load reaches the size it would have had and spends the same CPU per call. A cap for the life of
 * the process (`--max-semi-space-size`) saves the same at idle but costs CPU per call under load
 * (BENCHMARKS.md, "Footprint").
 *
 * Held by importing this file before anything else; the entry points release it once the
 * backends' first connection attempts are over. The growth factor is read each time the young
 * generation would grow: 1 means it does not.
 */
setFlagsFromString('--semi-space-growth-factor=1');

/** Gives the young generation back to V8: its default growth factor, 2, each time it grows. */
export function releaseYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
