/** A progress line on stderr, so stdout carries only the table. */
export const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
