/**
 * Scenario 14: the browser client's size (client + HTTP + WebSocket client transports, bundled,
 * minified, gzipped), measured by the same code as the pack check.
 */
import { NotBuilt } from '../common.mjs';

/** Value: the gzipped size in bytes; the minified size and the pack check's budget beside it. */
export async function run() {
  const { BROWSER_CLIENT_BUDGET, measureBrowserClient } = await import(
    '../../../scripts/browser-bundle.mjs'
  );
  let sizes;
  try {
    sizes = await measureBrowserClient();
  } catch (error) {
    // esbuild cannot resolve a package whose dist is missing.
    if (/Could not resolve/.test(String(error?.message))) throw new NotBuilt('browser client');
    throw error;
  }
  return {
    value: sizes.gzipped,
    extra: { minified: sizes.minified, budget: BROWSER_CLIENT_BUDGET },
  };
}
