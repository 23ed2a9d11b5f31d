import { fileURLToPath } from 'node:url';

/**
 * Path of a fixture script. The fixtures run on the packages' built `dist`, which the test run's
 * global setup keeps up to date.
 */
export function stdioFixture(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}
