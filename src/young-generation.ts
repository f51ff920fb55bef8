import { setFlagsFromString } from 'node:v8';

/**
 * V8's young generation held at its initial size (two semi-spaces of 1 MiB) while the router
 * boots, and left to V8 once it is ready. While the modules load and the application is built,
 * nearly everything allocated survives, so V8 doubles the young generation up to its maximum (two
 * semi-spaces of 16 MiB on 64-bit) within the boot, and the scavenges that follow touch both
 * halves: 20 to 30 MiB resident in a router that then waits for calls, each of which leaves a few
 * kilobytes of garbage (README, "Footprint").
 *
 * Held, the boot scavenges more often, for the same survivors. Released, V8 grows the young
 * generation again when the bytes that survived its scavenges since it last grew exceed its size:
 * calls in flight do, so a router under load reaches the size it would have had and spends the
 * same CPU per call, while one that waits stays small. A cap for the life of the process
 * (`--max-semi-space-size`) saves the same at idle but costs CPU per call under load
 * (BENCHMARKS.md, "Footprint").
 *
 * Held by importing this file before anything else; the entry points release it once the
 * backends' first connection attempts are over. The growth factor is read each time the young
 * generation would grow: 1 means it does not.
 */
setFlagsFromString('--semi-space-growth-factor=1');

/**
 * Gives the young generation back to V8, which grows it by a factor each time. Not V8's default
 * factor of 2: from 1 MiB that takes four steps to the 16 MiB semi-spaces a loaded router has,
 * each waiting for as many surviving bytes as its size, some 4,000 calls at 16 in flight at up to
 * 1.5 times the CPU per call (7% more over the first 20,000 in `npm run bench:footprint`). With 16
 * the first MiB of survivors takes it there in one step, as if it had never been held.
 */
export function releaseYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=16');
}
