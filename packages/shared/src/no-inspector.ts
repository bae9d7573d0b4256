// A side-effect entry (`import '@virt-launcher/shared/no-inspector';`), imported first by each CLI so it runs
// before any other module of the process is evaluated.
//
// Without a SIGUSR1 listener Node answers that signal by opening its inspector on 127.0.0.1:9229, and any
// process of the pod that may signal this one (same uid, e.g. a compromised QEMU) could then run code in it.
// A listener replaces that default; the signal itself means nothing to these programs and is ignored.
process.on('SIGUSR1', () => undefined);

export {};
