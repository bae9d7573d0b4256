// Step 3 of SyncVMI: find the domain by name, or (first sync) run the preStartHook and define it
// (docs/behaviour.md#syncvirtualmachine, step 4). The metadata cache learns the VMI UID and grace period here.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Domain } from '../../adapters/libvirt.js';
import { isNoDomain } from '../../errors.js';
import { log } from '../../log.js';
import type { VmiView } from '../../vmi.js';
import type { SyncEnv } from './env.js';
import { step } from './env.js';
import { prepareStorage } from './prepare-storage.js';
import { writeConfigDriveDevices } from './storage/cloud-init.js';
import { sysfsPciFacts } from './storage/host-pci.js';

export async function lookupOrDefine(env: SyncEnv, vmi: VmiView, domainXml: string): Promise<Domain> {
  const vlog = log.with({ name: vmi.name, namespace: vmi.namespace, uid: vmi.uid, kind: 'VirtualMachineInstance' });
  try {
    return await env.conn().lookupDomainByName(vmi.domainName);
  } catch (err) {
    if (!isNoDomain(err)) {
      vlog.error('Getting the domain failed.');
      throw err;
    }
  }
  vlog.info('Executing PreStartHook on VMI pod environment');
  // QEMU binds the serial and VNC sockets here; the launcher made it for --uid, the VMI may name another.
  if (vmi.uid) await mkdir(join(env.paths.privateDir, vmi.uid), { recursive: true, mode: 0o755 });
  await step('prepare network', vmi, () => env.prepareNetwork(vmi));
  // Storage returns the XML with each disk's cache/io mode, chosen once the disk's file exists.
  const readyXml = await step('prepare storage', vmi, () => prepareStorage(env, vmi, domainXml));
  let dom: Domain;
  try {
    // Hook sidecars rewrite the domain last, right before it is defined (KubeVirt's OnDefineDomain).
    const { hooks } = env;
    const finalXml = hooks ? await step('hooks', vmi, () => hooks.onDefineDomain(readyXml, vmi.raw)) : readyXml;
    dom = await step('define', vmi, () => env.conn().defineXML(finalXml));
  } catch (err) {
    vlog.error('Defining the VirtualMachineInstance failed.');
    throw err;
  }
  // Tagged devices get their addresses at define: the config drive is written again to list them. A failure
  // undefines the domain, so the next sync runs the preStartHook again instead of starting without the list.
  try {
    await step('config drive devices', vmi, () =>
      writeConfigDriveDevices(vmi, () => dom.getXMLDesc(), sysfsPciFacts(env.sysfsRoot)),
    );
  } catch (err) {
    vlog.error('Writing the config drive device metadata failed.');
    await dom
      .undefine({ keepNvram: true })
      .catch(() => dom.undefine())
      .catch(() => undefined);
    throw err;
  }
  env.metadata.update((m) => {
    m.UID = vmi.uid;
    m.GracePeriod = { ...m.GracePeriod, DeletionGracePeriodSeconds: vmi.terminationGracePeriodSeconds };
  });
  vlog.info('Domain defined.');
  return dom;
}
