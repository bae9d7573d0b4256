// No inspector in the pod. The inspector is a debugger port (ws://127.0.0.1:9229) that runs any
// code it is sent inside the process; PID 1 of a pod must never offer one. Three ways open it:
// - SIGUSR1: caught by the SignalGate (signals.ts), which replaces Node's default reaction;
// - --inspect (or --inspect-brk, --inspect-wait) on the command line or in NODE_OPTIONS: the
//   monitor closes its own inspector as soon as its code runs, and removes those options from the
//   NODE_OPTIONS it hands to COMMAND;
// - inspector.open() from code, which the monitor never calls.
// (--inspect-brk stops the process before any of its code runs: only the pod's author can set
// that, and such a pod never starts the launcher.)

/** NODE_OPTIONS entries that open an inspector or choose its address. */
const INSPECTOR_OPTION = /^--(inspect(-brk|-wait|-port|-publish-uid)?|debug-port)(=|$)/;
/** Those of them whose value may come as the next word. */
const TAKES_VALUE = /^--(inspect-port|inspect-publish-uid|debug-port)$/;

/** True when this process was started with an option that opens the inspector. */
export function startedWithInspector(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS,
): boolean {
  const words = [...execArgv, ...splitNodeOptions(nodeOptions ?? '')];
  return words.some((word) => /^--inspect(-brk|-wait)?(=|$)/.test(word));
}

/**
 * Closes this process's inspector if one is listening; resolves to whether one was. node:inspector
 * is loaded only when an option may have opened it (it costs ~1.3 MiB of RSS for the VM's life).
 */
export async function closeInspector(mayBeOpen = startedWithInspector()): Promise<{ wasOpen: boolean; url?: string }> {
  if (!mayBeOpen) return { wasOpen: false };
  const inspector = await import('node:inspector');
  const url = inspector.url();
  if (url === undefined) return { wasOpen: false };
  inspector.close();
  return { wasOpen: true, url };
}

/** Splits NODE_OPTIONS as Node does: on spaces, with "double quotes" and \-escapes inside them. */
export function splitNodeOptions(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted && c === '\\' && i + 1 < text.length) {
      word += text[++i];
    } else if (c === '"') {
      quoted = !quoted;
      inWord = true;
    } else if (c === ' ' && !quoted) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function quoteNodeOption(word: string): string {
  return /[\s"\\]/.test(word) || word === '' ? `"${word.replace(/["\\]/g, (c) => `\\${c}`)}"` : word;
}

/**
 * The environment for COMMAND: NODE_OPTIONS without the options that open or place an inspector
 * (so `NODE_OPTIONS=--inspect` on the container cannot open one in the launcher either).
 */
export function withoutInspectorOptions(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; removed: string[] } {
  const value = env.NODE_OPTIONS;
  if (value === undefined || !value.includes('-')) return { env, removed: [] };
  const kept: string[] = [];
  const removed: string[] = [];
  const words = splitNodeOptions(value);
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (!INSPECTOR_OPTION.test(word)) {
      kept.push(word);
      continue;
    }
    removed.push(word);
    const next = words[i + 1];
    if (TAKES_VALUE.test(word) && next !== undefined && !next.startsWith('-')) removed.push(words[++i] as string);
  }
  if (removed.length === 0) return { env, removed };
  const copy = { ...env };
  if (kept.length === 0) delete copy.NODE_OPTIONS;
  else copy.NODE_OPTIONS = kept.map(quoteNodeOption).join(' ');
  return { env: copy, removed };
}
