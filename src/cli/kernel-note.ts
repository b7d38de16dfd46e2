/** The one note a run under an address-space limit gets about its islands' kernel (src/ga/kernel.ts). */
import { webAssemblyMemoryRefused } from '../ga/kernel.ts';
import { printError } from './output.ts';

let said = false;

/** Says, once per process, that the islands use the TypeScript kernel because the WebAssembly one cannot reserve its memory. */
export function noteKernelFallback(): void {
  if (said || !webAssemblyMemoryRefused()) return;
  said = true;
  printError(
    'the address-space limit (ulimit -v) leaves no room for the WebAssembly kernel (V8 reserves about 10 GB for each of its memories); the islands use the TypeScript kernel: the same results, more slowly',
  );
}
