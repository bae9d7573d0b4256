// Extra QEMU arguments: Ignition config through fw_cfg when the annotation carries one.
import type { Configurator } from './configurator.js';

export const IGNITION_ANNOTATION = 'kubevirt.io/ignitiondata';

export const qemuCommandline: Configurator = {
  name: 'qemu-commandline',
  configure(vmi, domain, ctx) {
    const data = vmi.metadata.annotations?.[IGNITION_ANNOTATION];
    if (!data?.includes('ignition')) return;
    const file = `${ctx.paths.ephemeralDiskDir}/ignition-data/${vmi.metadata.namespace ?? ''}/${vmi.metadata.name}/data.ign`;
    domain.qemuCommandline.push('-fw_cfg', `name=opt/com.coreos/config,file=${file}`);
  },
};
