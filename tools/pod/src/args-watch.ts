// `--watch` and `--volume NAME=FILE`: read here so args.ts only lists them.
import { UsageError } from './args.js';

export interface WatchArgs {
  watch: boolean;
  /** PVC or DataVolume volume name -> the file that backs it (hotpluggable ones land in the hotplug dir). */
  volumes: Map<string, string>;
}

export function watchArgs(values: Record<string, string | boolean | string[] | undefined>): WatchArgs {
  const volumes = new Map<string, string>();
  for (const spec of (values.volume as string[] | undefined) ?? []) {
    const eq = spec.indexOf('=');
    if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--volume ${spec}: expected NAME=FILE`);
    volumes.set(spec.slice(0, eq), spec.slice(eq + 1));
  }
  const watch = values.watch === true;
  if (watch && values['until-lease']) throw new UsageError('--watch and --until-lease exclude each other');
  return { watch, volumes };
}
