// Extra QEMU arguments: Ignition config through fw_cfg when the annotation carries one, and SeaBIOS's debug
// console when the launcher logs verbosely.
import type { Configurator } from './configurator.js';

export const IGNITION_ANNOTATION = 'kubevirt.io/ignitiondata';

/** Verbosity above which KubeVirt's launcher switches its external debug logs on (its EXT_LOG_VERBOSITY_THRESHOLD). */
export const DEBUG_LOG_VERBOSITY_THRESHOLD = 5;

/** The file SeaBIOS's debug port is written to; KubeVirt's launcher reads it as a FIFO into its own log. */
export const FIRMWARE_LOG_FILE = 'QEMUSeaBiosDebugPipe';

export const qemuCommandline: Configurator = {
  name: 'qemu-commandline',
  configure(vmi, domain, ctx) {
    const data = vmi.metadata.annotations?.[IGNITION_ANNOTATION];
    if (data?.includes('ignition')) {
      const file = `${ctx.paths.ephemeralDiskDir}/ignition-data/${vmi.metadata.namespace ?? ''}/${vmi.metadata.name}/data.ign`;
      domain.qemuCommandline.push('-fw_cfg', `name=opt/com.coreos/config,file=${file}`);
    }
    const verbosity = ctx.raw.launcherLogVerbosity;
    if (ctx.arch.firmwareDebugLog && verbosity !== undefined && verbosity > DEBUG_LOG_VERBOSITY_THRESHOLD) {
      // libvirt has no element for an ISA debug console, so it goes through the QEMU namespace as in KubeVirt.
      domain.qemuCommandline.push(
        '-chardev',
        `file,id=firmwarelog,path=${ctx.paths.kubevirtPrivateDir}/${FIRMWARE_LOG_FILE}`,
        '-device',
        'isa-debugcon,iobase=0x402,chardev=firmwarelog',
      );
    }
  },
};
