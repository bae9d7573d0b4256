// <launchSecurity> from spec.domain.launchSecurity. SEV and SEV-ES are built: the policy bits follow the
// AMD SEV API (bit 0 "no debug" is always set, bit 2 for an encrypted register state), the owner's
// certificate and session blob pass through, and the C-bit position / reduced physical address bits
// come from the context's SEV facts when the launcher has them (libvirt fills them in otherwise).
// SEV-SNP and TDX cannot be written for the libvirt this launcher ships (9.0): its schema knows only
// `sev` and `s390-pv`, so a VMI asking for them is refused rather than started without protection.
// s390 Protected Virtualization is no element at all: as KubeVirt does in a privileged pod, every
// virtio device gets iommu="on" instead (context.useLaunchSecurityPV), which is what libvirt's s390-pv
// type would have done.
import { ConversionError } from '../errors.js';
import type { Configurator } from './configurator.js';

/** Guest policy bits of the AMD SEV API. */
const SEV_POLICY_NO_DEBUG = 1 << 0;
const SEV_POLICY_ENCRYPTED_STATE = 1 << 2;

const LIBVIRT_SCHEMA = 'the libvirt this launcher uses (9.0) has no such <launchSecurity> type';

export const launchSecurity: Configurator = {
  name: 'launch-security',
  configure(vmi, domain, ctx) {
    const security = vmi.spec.domain.launchSecurity;
    if (!security) return;
    const field = 'spec.domain.launchSecurity';
    // On s390x an empty launchSecurity asks for Secure Execution (KubeVirt's rule): no element, the
    // IOMMU-backed virtio devices that the resolved context turns on for it.
    if (ctx.arch.arch === 's390x' && !security.sev && !security.snp && !security.tdx) return;
    if (ctx.arch.arch !== 'amd64') {
      throw new ConversionError(field, ctx.arch.arch, `SEV, SEV-SNP and TDX need an amd64 host, not ${ctx.arch.arch}`);
    }
    if (security.sev) {
      let bits = SEV_POLICY_NO_DEBUG;
      if (security.sev.policy?.encryptedState) bits |= SEV_POLICY_ENCRYPTED_STATE;
      domain.launchSecurity = {
        type: 'sev',
        policy: `0x${bits.toString(16)}`,
        cbitpos: ctx.raw.sev?.cbitpos,
        reducedPhysBits: ctx.raw.sev?.reducedPhysBits,
        dhCert: security.sev.dhCert || undefined,
        session: security.sev.session || undefined,
      };
      return;
    }
    if (security.snp) throw new ConversionError(`${field}.snp`, 'snp', `SEV-SNP: ${LIBVIRT_SCHEMA} (sev-snp)`);
    if (security.tdx) throw new ConversionError(`${field}.tdx`, 'tdx', `TDX: ${LIBVIRT_SCHEMA} (tdx)`);
    throw new ConversionError(field, security, 'names none of sev, snp, tdx');
  },
};
