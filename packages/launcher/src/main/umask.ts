// The launcher's file-creation mask. KubeVirt clears it around its directory set-up; here that set-up runs
// concurrently with the daemons' start, so a cleared mask would leak into libvirtd, virtlogd and QEMU (config
// files 0666, state directories 0777). Instead the mask is only ever tightened, synchronously, and modes that
// must be exact are set with chmod.

/** Group and others never get write permission from this process or its children (daemons, QEMU, tools). */
const REQUIRED_BITS = 0o022;

/** Adds 022 to the process umask (a stricter one, e.g. 077, is kept); returns the mask now in force. */
export function tightenUmask(): number {
  // Two synchronous calls with nothing in between: reading the mask needs setting it in Node.
  const previous = process.umask(REQUIRED_BITS);
  const tightened = previous | REQUIRED_BITS;
  process.umask(tightened);
  return tightened;
}
