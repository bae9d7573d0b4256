// Go types that KubeVirt's structs use from other packages (k8s.io/apimachinery, encoding/xml, kubevirt.io/api),
// written down by hand as facts because the extractor reads only KubeVirt's two files. Each entry says how
// encoding/json and encoding/xml treat the type; `special` kinds have their own (Un)Marshal methods in Go.
import type { GoType } from './extract.js';

export type SpecialKind =
  /** metav1.Time: JSON is an RFC 3339 string in UTC with whole seconds, or null for the zero time. */
  | 'time'
  /** api.Alias: unexported fields with MarshalJSON {Name, UserDefined}; XML `name` attr with the `ua-` prefix. */
  | 'alias'
  /** Not decoded field by field here (owner references, managed fields): any JSON value is accepted. */
  | 'opaque';

export type ExternalType = GoType | { kind: 'special'; special: SpecialKind };

const str = (name: string, json: string) => ({ name, type: 'string', json });

export const EXTERNAL_TYPES: Record<string, ExternalType> = {
  'metav1.TypeMeta': {
    kind: 'struct',
    fields: [str('Kind', 'kind,omitempty'), str('APIVersion', 'apiVersion,omitempty')],
  },
  'metav1.ObjectMeta': {
    kind: 'struct',
    fields: [
      str('Name', 'name,omitempty'),
      str('GenerateName', 'generateName,omitempty'),
      str('Namespace', 'namespace,omitempty'),
      str('SelfLink', 'selfLink,omitempty'),
      { name: 'UID', type: 'types.UID', json: 'uid,omitempty' },
      str('ResourceVersion', 'resourceVersion,omitempty'),
      { name: 'Generation', type: 'int64', json: 'generation,omitempty' },
      // A struct: omitempty never omits it, and the zero time marshals as null.
      { name: 'CreationTimestamp', type: 'metav1.Time', json: 'creationTimestamp,omitempty' },
      { name: 'DeletionTimestamp', type: '*metav1.Time', json: 'deletionTimestamp,omitempty' },
      { name: 'DeletionGracePeriodSeconds', type: '*int64', json: 'deletionGracePeriodSeconds,omitempty' },
      { name: 'Labels', type: 'map[string]string', json: 'labels,omitempty' },
      { name: 'Annotations', type: 'map[string]string', json: 'annotations,omitempty' },
      { name: 'OwnerReferences', type: '[]metav1.OwnerReference', json: 'ownerReferences,omitempty' },
      { name: 'Finalizers', type: '[]string', json: 'finalizers,omitempty' },
      { name: 'ManagedFields', type: '[]metav1.ManagedFieldsEntry', json: 'managedFields,omitempty' },
    ],
  },
  'metav1.ListMeta': { kind: 'special', special: 'opaque' },
  'metav1.OwnerReference': { kind: 'special', special: 'opaque' },
  'metav1.ManagedFieldsEntry': { kind: 'special', special: 'opaque' },
  'metav1.Time': { kind: 'special', special: 'time' },
  // No json tags: the keys are the Go names.
  'xml.Name': {
    kind: 'struct',
    fields: [
      { name: 'Space', type: 'string' },
      { name: 'Local', type: 'string' },
    ],
  },
  'types.UID': { kind: 'named', underlying: 'string' },
  'v1.DiskBus': { kind: 'named', underlying: 'string' },
  'v1.DiskErrorPolicy': { kind: 'named', underlying: 'string' },
  'v1.DriverIO': { kind: 'named', underlying: 'string' },
  'v1.InputBus': { kind: 'named', underlying: 'string' },
  'v1.InputType': { kind: 'named', underlying: 'string' },
  'v1.MigrationMode': { kind: 'named', underlying: 'string' },
  'v1.PanicDeviceModel': { kind: 'named', underlying: 'string' },
  'v1.Percent': { kind: 'named', underlying: 'string' },
};

/** Types of KubeVirt's own files whose Go methods replace the field-by-field rules. */
export const OVERRIDES: Record<string, ExternalType> = {
  Alias: { kind: 'special', special: 'alias' },
};
