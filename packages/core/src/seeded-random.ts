/**
 * The seeded pseudo-random numbers a faulty transport draws its faults from: the same seed gives
 * the same sequence, so a failing test can be replayed.
 *
 * @module
 */

/**
 * mulberry32: a small, fast, seeded 32-bit PRNG. Returns floats in [0, 1).
 *
 * @param seed - the seed (taken as an unsigned 32-bit integer)
 * @returns a function that gives the next number of the sequence each time it is called
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
