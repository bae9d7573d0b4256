// Where a program writes, so a test can run it in-process and the CLI wires it to the real streams.
export interface ProgramIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}
