// A side-effect entry imported by cli.ts right after no-inspector, before the rest of the launcher allocates.
//
// V8 starts the young generation small and doubles it whenever a scavenge sees many survivors. Loading gRPC,
// the protos and the converter at start-up does exactly that, and V8 never gives the space back while the process
// idles: a launcher with a running guest kept ~8 MiB of young generation committed (7.75 MiB resident) holding
// ~1.5 MiB of live objects, more than a quarter of its anonymous memory. With a growth factor of 1 the young
// generation keeps its initial size; survivors are promoted to the old generation a little earlier instead.
//
// Why here and not as a command-line flag: `--max-semi-space-size` only applies when given to `node` itself, and
// the launcher is started in three ways (the image's shim, virt-pod's `node cli.js`, the committed bin that
// imports dist/cli.js), so a flag would have to be repeated in each and would be lost by the next one.
// The growth factor is read by V8 every time it considers growing the space, so setting it at run time works
// under every one of them. The old generation keeps V8's default limit: a large (still accepted) SyncVMI must not
// become an out-of-memory crash (see the note in cli.ts).
import { setFlagsFromString } from 'node:v8';

/** The V8 flag this module sets, exported for the test that proves it is in force. */
export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

setFlagsFromString(YOUNG_GENERATION_FLAG);
