// The one place that knows @virt-launcher/libvirt's face. The launcher codes against narrow views of the face's
// own types (Pick of its classes, so a change there breaks the build here). The package is loaded early and in
// parallel with the daemons' start (preloadLibvirt), with a literal specifier so the face stays type-checked;
// everywhere else it is imported with `import type` only, so start-up never pays for it before that.
import type * as Libvirt from '@virt-launcher/libvirt';

export type DomainEvent = Libvirt.DomainLifecycleEvent;
export type LifecycleEvent = Libvirt.LifecycleEventName;
/** The state with libvirt's numbers (`stateCode`, `reasonCode`) beside their names. */
export type DomainState = Libvirt.DomainState;
export type ErrorCodeName = Libvirt.ErrorCodeName;

/** What the launcher does with a domain. */
export type Domain = Pick<
  Libvirt.Domain,
  | 'name'
  | 'getUUID'
  | 'create'
  | 'shutdown'
  | 'destroy'
  | 'undefine'
  | 'suspend'
  | 'resume'
  | 'reset'
  | 'reboot'
  | 'getState'
  | 'getXMLDesc'
>;

/** What the launcher does with a connection; the face's Connection is one as it is, without a cast. */
export interface Connection extends Pick<
  Libvirt.Connection,
  'isAlive' | 'getLibVersion' | 'getHypervisorVersion' | 'getCapabilities' | 'getAllDomainStats' | 'close'
> {
  listAllDomains(): Promise<Domain[]>;
  defineXML(xml: string): Promise<Domain>;
  lookupDomainByName(name: string): Promise<Domain>;
  on<K extends keyof Libvirt.ConnectionEvents>(
    event: K,
    listener: (...args: Libvirt.ConnectionEvents[K]) => void,
  ): this;
  once<K extends keyof Libvirt.ConnectionEvents>(
    event: K,
    listener: (...args: Libvirt.ConnectionEvents[K]) => void,
  ): this;
  off<K extends keyof Libvirt.ConnectionEvents>(
    event: K,
    listener: (...args: Libvirt.ConnectionEvents[K]) => void,
  ): this;
}

type LibvirtFace = typeof Libvirt;

interface FaceState {
  loading?: Promise<LibvirtFace>;
  /** Set once the face has loaded: a LibvirtError can only exist after that, so error matching may read it. */
  loaded?: LibvirtFace;
}

// One state per process, not per copy of this module: the bundled launcher holds this module twice (dist/cli.js
// loads the binding and connects, dist/launcher-main.cjs matches the errors; scripts/bundle.ts).
const FACE = Symbol.for('virt-launcher.libvirt-face');
const registry = globalThis as typeof globalThis & { [FACE]?: FaceState };
const face: FaceState = (registry[FACE] ??= {});

/** Starts loading the binding (native addon included) so it overlaps with the daemons' start-up. */
export function preloadLibvirt(): Promise<LibvirtFace> {
  const loading = (face.loading ??= import('@virt-launcher/libvirt').then((f) => (face.loaded = f)));
  loading.catch(() => (face.loading = undefined)); // a failed load is retried on the next call
  return loading;
}

export async function connectLibvirt(uri: string): Promise<Connection> {
  const libvirt = await preloadLibvirt();
  return libvirt.connect(uri);
}

/** The error as the binding's LibvirtError, or undefined when it is something else. */
export function asLibvirtError(err: unknown): Libvirt.LibvirtError | undefined {
  return face.loaded && err instanceof face.loaded.LibvirtError ? err : undefined;
}

/** Whether the error is a LibvirtError with that code (`hasLibvirtCode(err, 'NO_DOMAIN')`). */
export function hasLibvirtCode(err: unknown, name: ErrorCodeName): boolean {
  const lv = asLibvirtError(err);
  return lv !== undefined && face.loaded !== undefined && lv.code === face.loaded.ErrorCode[name];
}

/** What a live migration does with a domain (migration/): the launcher's Domain plus the job calls. */
export type MigrationDomain = Domain &
  Pick<
    Libvirt.Domain,
    'migrateToURI3' | 'getJobStats' | 'abortJob' | 'migrateStartPostCopy' | 'migrateSetMaxDowntime' | 'getXMLDesc'
  >;

/** The connection's domains are the face's own Domain objects: they have the migration calls too. */
export function asMigrationDomain(dom: Domain): MigrationDomain {
  return dom as MigrationDomain;
}
