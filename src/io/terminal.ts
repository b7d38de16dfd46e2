/**
 * Text from files (a sweep value, a cell id, a config string, a trace's header) reaches
 * terminals through every command. A control character in it could drive the terminal
 * (`\e]0;...\a` sets the title, `\e[2J` clears the screen, CSI as the one byte U+009B), and
 * a bidirectional override could make a line read other than it is. So all text a command
 * prints goes through `safeText`: each such character is shown as its `\uXXXX` escape
 * instead. Inside JSON strings that escape means the same character, so printed JSON stays
 * exactly the data. Newline and tab are kept.
 */

/** C0 but tab and newline, DEL, C1, and the bidirectional embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function safeText(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether `stream` is a terminal that takes cursor movement (not a pipe, a file, or TERM=dumb). */
export function drawsOn(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && process.env.TERM !== 'dumb';
}
