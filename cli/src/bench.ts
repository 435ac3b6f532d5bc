// `proxy-tuner bench`: owned by the benchmark engineer, who replaces this file. Until the engine
// lands the subcommand says so and fails with the usage exit code.
export async function benchCommand(argv: string[]): Promise<number> {
  void argv;
  process.stderr.write('bench: not available yet\n');
  return 2;
}
