#!/usr/bin/env -S node --max-old-space-size=16 --max-semi-space-size=1 --v8-pool-size=0
// virt-launcher-monitor [flags] [-- COMMAND [ARGS...]]
// The shebang caps the V8 heap: this process lives as long as the VM, so its footprint counts.
// (Run as `node cli.js` the shebang is not read; nothing that protects the pod may live there.)
//
// The only static import is the signal gate, installed before the rest of the program is even
// loaded: as PID 1 a signal that finds no handler is discarded, and SIGUSR1 without a listener
// opens Node's inspector (see signals.ts).
import { installSignalGate } from './signals.js';

const signals = installSignalGate();
const { main } = await import('./main.js');
await main(signals);
