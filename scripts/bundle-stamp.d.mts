/** A hash of what the bundles of the package in `dir` are made from. */
export function bundleInputsHash(dir: string): string;
/** Records, after bundling, what the bundles of the package in `dir` were made from. */
export function writeBundleStamp(dir: string, inputs: string, outputs: readonly string[]): void;
/** Whether the bundles of the package in `dir` are older than its sources. */
export function bundlesStale(dir: string): boolean;
/** Whether the package in `dir` bundles its entries. */
export function bundlesEntries(dir: string): boolean;
